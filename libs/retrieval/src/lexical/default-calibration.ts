import type { Calibration } from './calibration.js';

/**
 * The built-in grade calibration, used until a tenant fits its own (`POST
 * /admin/knowledge/grading/fit`). Fitted by `npm run bench:retrieval:quality -- --fit` on the
 * `fit` halves of the benchmark sets (StackFAQ, BANKING77-FAQ, SMP2017-FAQ, and the demo knowledge base, the one set with keywords, weighted to a quarter) with the built-in embedder (docs/retrieval.md "Grading").
 */
export const DEFAULT_CALIBRATION: Readonly<Calibration> = Object.freeze({
  weights: [-3.2021, 0.5679, 0.2518, 0.4993, 0.3749, 1.0779, 1.04, 0.379, 0.7639, 0.6017, 0.5127, 0.1596, 0.3554, 0.1657, -0.2142],
  cuts: { reference: 0.3651, highlyRelevant: 0.6329 },
});
