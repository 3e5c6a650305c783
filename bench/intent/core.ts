// The benchmarks measure the pure routing core on its own (no Nest, no database), and must run from
// plain `tsc` output without path-alias rewriting; this is the single import across the lib boundary.
// eslint-disable-next-line no-restricted-imports
export * from '../../libs/intent/src/routing/index.js';
