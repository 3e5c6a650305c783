// Moved to @arbiter/testing (libs/testing/src/database/template.ts); this re-export goes once every importer uses the package.
export * from '@arbiter/testing';
