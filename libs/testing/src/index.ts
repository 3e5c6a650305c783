// Test-only infrastructure (excluded from the production build by tsconfig.build.json).
export * from './fake-openai-server.js';
export * from './deadline.js';
export * from './prng.js';
export * from './poll-until.js';
