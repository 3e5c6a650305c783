import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const LIB_IMPORT_PATTERNS = [{ group: ['../../*/src/*', '**/libs/*/src/*'], message: 'Import another lib through @arbiter/<lib>.' }];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'libs/database/src/generated/**', 'data/**', 'coverage/**', 'bench/results/**', 'bench/.cache/**', '*.config.js'] },
  js.configs.recommended,
  { files: ['**/*.mjs', '**/*.js'], languageOptions: { globals: globals.node } },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'off',
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/libs/*/src/*'], message: 'Import another lib through @arbiter/<lib>.' }] }],
    },
  },
  {
    // The console runs in the browser (docs/console.md).
    files: ['apps/console/src/**/*.{ts,tsx}'],
    languageOptions: { globals: globals.browser },
  },
  {
    // Inside libs, a relative import may not climb into a sibling lib either.
    files: ['libs/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: LIB_IMPORT_PATTERNS }] },
  },
  {
    // Dependency direction: feedback → case-library, never back (docs/CONVENTIONS.md "Table ownership").
    files: ['libs/case-library/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: LIB_IMPORT_PATTERNS,
          paths: [{ name: '@arbiter/feedback', message: 'The case library does not depend on feedback: feedback calls the case-library lib.' }],
        },
      ],
    },
  },
  {
    // Modules import what they use (docs/CONVENTIONS.md "Modules"); jobs are declared in JOB_CATALOG.
    files: ['libs/**/*.ts', 'apps/**/*.ts'],
    ignores: ['libs/config/src/config.module.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "Decorator[expression.callee.name='Global']",
          message: 'No @Global modules: import the module where you use its providers (docs/CONVENTIONS.md "Modules").',
        },
        {
          selector: "CallExpression[callee.property.name='defineAdHoc']",
          message: 'Declare jobs in JOB_CATALOG with a @JobHandler provider (docs/FOUNDATION.md "Jobs"); defineAdHoc is for the jobs framework tests.',
        },
      ],
    },
  },
);
