import type { Calibration } from './calibration.js';

/**
 * The built-in grade calibration, used until a tenant fits its own (`POST
 * /admin/knowledge/grading/fit`). Fitted by `npm run bench:retrieval:quality -- --fit` on the
 * training halves of the benchmark sets with the built-in embedder (docs/retrieval.md "Grading").
 */
export const DEFAULT_CALIBRATION: Readonly<Calibration> = Object.freeze({
  weights: [-2.9765, 0.4344, 0.2142, 0.5206, 0.3519, 1.1471, 1.0216, 0.0308, 0.6208, 0.4391, 0.3625, 0.1519, 0.2781, 0.4026, -0.2895],
  cuts: { reference: 0.3805, highlyRelevant: 0.6463 },
});
