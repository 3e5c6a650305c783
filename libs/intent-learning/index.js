// Entry of @arbiter/intent-learning in the built app (npm run build → dist/). The type checker, jest and the
// TypeScript loader of bench/ and test/ children resolve the sources instead (export condition
// "arbiter-source" → src/index.ts). See docs/CONVENTIONS.md "Lib packages".
export * from '../../dist/libs/intent-learning/src/index.js';
