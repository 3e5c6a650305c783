// Moved to @arbiter/testing (libs/testing/src/database/test-database.ts); this re-export goes once every importer uses the package.
export * from '@arbiter/testing';
