import type { Calibration } from './calibration.js';

/**
 * The built-in grade calibration, used until a tenant fits its own (`POST
 * /admin/knowledge/grading/fit`). Fitted by `npm run bench:retrieval:quality -- --fit` on the
 * `fit` halves of the benchmark sets (StackFAQ, BANKING77-FAQ, SMP2017-FAQ, and the demo knowledge base, the one set with keywords, weighted to a quarter) with the built-in embedder (docs/retrieval.md "Grading").
 */
export const DEFAULT_CALIBRATION: Readonly<Calibration> = Object.freeze({
  weights: [-3.1776, 0.5809, 0.2502, 0.4993, 0.3752, 1.0666, 1.0382, 0.3555, 0.7715, 0.5805, 0.5081, 0.1602, 0.3489, 0.1692, -0.2293],
  cuts: { reference: 0.3634, highlyRelevant: 0.6288 },
});
