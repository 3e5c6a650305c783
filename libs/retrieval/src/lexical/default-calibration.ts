import type { Calibration } from './calibration.js';

/**
 * The built-in grade calibration, used until a tenant fits its own (`POST
 * /admin/knowledge/grading/fit`). Fitted by `npm run bench:retrieval:quality -- --fit` on the
 * `fit` halves of the benchmark sets (StackFAQ, BANKING77-FAQ, SMP2017-FAQ, and the demo knowledge base, the one set with keywords, weighted to a quarter) with the built-in embedder (docs/retrieval.md "Grading"):
 * the ranking model then, its answerability model over it since.
 */
export const DEFAULT_CALIBRATION: Readonly<Calibration> = Object.freeze({
  // The last weight, `titleOverlap` (added 2026-12-07), is 0: the weights tried for it lifted an FAQ asked in users'
  // own words but cost the demo tenant right answers or its cross-language questions (docs/retrieval.md "Grading");
  // a tenant's own fit weighs it.
  weights: [-3.1776, 0.5809, 0.2502, 0.4993, 0.3752, 1.0666, 1.0382, 0.3555, 0.7715, 0.5805, 0.5081, 0.1602, 0.3489, 0.1692, -0.2293, 0],
  cuts: { reference: 0.3634, highlyRelevant: 0.6288 },
  // Answer or refuse (docs/retrieval.md "Answerability"): fitted over the ranking model above by
  // `npm run bench:retrieval:quality -- --fit` on the same `fit` halves (BANKING77-FAQ, SMP2017-FAQ, demo
  // knowledge base at a quarter; StackFAQ was not available), 2026-12-03, without `rivalMargin` (weight 0:
  // its near-duplicate bar was chosen on intent-derived sets; it cost two of the demo tenant's six
  // cross-language table questions).
  answerability: {
    weights: [1.5468, 2.2607, 0.0089, 0, -1.5228, 0.8862, -1.4997, -0.3515, 0.463, -0.1152, -1.0725, 1.2338, 0.3935, 0.8747, -0.2169],
    cuts: { reference: 0.4049, highlyRelevant: 0.7115 },
  },
});
