// ESM + SWC: jest must run under `node --experimental-vm-modules` (the npm scripts do; docs/CONVENTIONS.md "ESM everywhere").
const swc = [
  '@swc/jest',
  {
    jsc: {
      target: 'es2022',
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      keepClassNames: true,
    },
    module: { type: 'es6' },
    sourceMaps: 'inline',
  },
];
// ESM-only packages that CommonJS dependencies require(): Node >= 20.19 loads them natively,
// jest's own loader does not, so they are compiled to CommonJS for the tests only.
const REQUIRED_ESM_PACKAGES = ['content-disposition', 'cookie'];
const swcToCommonJs = ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'ecmascript' } }, module: { type: 'commonjs' } }];
const common = {
  transform: {
    '^.+\\.ts$': swc,
    [`node_modules/(${REQUIRED_ESM_PACKAGES.join('|')})/.+\\.js$`]: swcToCommonJs,
  },
  transformIgnorePatterns: [`/node_modules/(?!(${REQUIRED_ESM_PACKAGES.join('|')})/)`],
  extensionsToTreatAsEsm: ['.ts'],
  // `./x.js` in a .ts file is the .ts source. `@arbiter/<lib>` resolves as the npm workspace package
  // libs/<lib> through its "arbiter-source" export (src/index.ts), like the type checker does.
  moduleNameMapper: {
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  testEnvironment: 'node',
  testEnvironmentOptions: { customExportConditions: ['arbiter-source', 'node', 'node-addons'] },
  rootDir: '.',
  modulePathIgnorePatterns: ['<rootDir>/dist/'],
};
// e2e files that measure no time and start no child process run two at a time (each has its own database);
// every other e2e file (deadlines, latency under load, rate windows, child processes) runs alone, so a
// neighbour's CPU never moves what it measures. A new e2e file is serial until it is listed here; a file with a few
// timing cases among many that qualify moves those cases to a serial file of their own (intent/intent-rules-timing,
// webhooks/webhook-latency).
const PARALLEL_E2E = [
  'chat/chat-clarify',
  'chat/chat',
  'chat/openai-compatible',
  'console/console-static',
  'console/openapi-types',
  'console/overview',
  'coverage/coverage',
  'database/data-layer',
  'evaluation/failed-run-outcome',
  'faults/bad-input',
  'faults/client-safe-errors',
  'faults/idempotent-ingest',
  'feedback/bad-case-review',
  'feedback/case-library',
  'feedback/feedback',
  'foundation/audit-writes',
  'foundation/audit',
  'foundation/cors',
  'foundation/embedded-boot',
  'foundation/keyset-pagination',
  'foundation/openapi',
  'foundation/route-auth',
  'foundation/tenants-auth',
  'intent/intent-rules',
  'jobs/job-total',
  'jobs/jobs-stop',
  'jobs/jobs',
  'learning/decisions',
  'learning/intent-fit',
  'learning/intent-replay',
  'monitoring/monitoring',
  'monitoring/operations',
  'retrieval/cross-language',
  'retrieval/hybrid-grading',
  'retrieval/knowledge-files-lookup',
  'retrieval/knowledge-files',
  'retrieval/knowledge-import',
  'retrieval/knowledge',
  'sessions/sessions',
  'webhooks/webhook-causes',
  'webhooks/webhooks',
].map((name) => `<rootDir>/test/${name}.e2e-spec.ts`);
const toPattern = (file) => file.replace('<rootDir>', '').replace(/[.]/g, '\\.') + '$';
const e2e = {
  ...common,
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
};
export default {
  // PGlite boots in seconds inside jest; integration and e2e hooks need the headroom.
  testTimeout: 120_000,
  // A leaked handle must never hang CI; leaks still show as a warning in the output.
  forceExit: true,
  // Every test file re-imports the app into the same heap (ESM under vm modules): in one process the e2e run grew to
  // 11 GB and slowed down as it went. With a limit jest runs the files in a worker it replaces once it holds more
  // (still one worker where maxWorkers is 1, so no test runs beside another it did not before).
  workerIdleMemoryLimit: '1536MB',
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/libs/**/*.spec.ts', '<rootDir>/apps/**/*.spec.ts', '<rootDir>/bench/**/*.spec.ts'] },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/libs/**/*.int-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
    { ...e2e, displayName: 'e2e', testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'], testPathIgnorePatterns: ['/node_modules/', ...PARALLEL_E2E.map(toPattern)] },
    { ...e2e, displayName: 'e2e-parallel', testMatch: PARALLEL_E2E },
    // The operator console in Debian's chromium against the API on the embedded database (docs/console.md).
    { ...common, displayName: 'browser', testMatch: ['<rootDir>/test/console/**/*.browser-spec.ts'] },
  ],
};
