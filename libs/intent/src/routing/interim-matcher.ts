/**
 * The interim matcher: what serves the `classifier` aggregation for the intents the serving classifier
 * was not trained on (a new intent, one whose examples changed, or every intent when there is no
 * classifier yet), from the moment the router is compiled until the retrained classifier is installed.
 * libs/intent/src/routing/README.md "Edits live at once".
 *
 * Nearest-example similarities (`centroid_knn`: 0.5 · centroid cosine + 0.5 · mean of the k nearest
 * examples) rank intents almost as well as the classifier (CLINC150 test, top-1 among in-scope: 89.1 vs
 * 91.9 %) but sit on another scale (a right match often scores 0.2–0.4), so under the thresholds tuned for
 * classifier probabilities most messages fell to `no_match`. A softmax over the similarities puts them on
 * the classifier's scale: a clear nearest intent gets most of the mass, a message near nothing or near
 * many intents gets little.
 */

/**
 * Softmax temperature over similarities in [0, 1] (chosen on CLINC150's validation set, not its test set:
 * in-scope accuracy of the interim alone, default thresholds; docs in the README section above).
 */
export const INTERIM_TEMPERATURE = 0.035;

/**
 * The softmax's denominator counts at least this many intents (the missing ones at similarity 0), so a
 * small tenant's weak match is not certain just because there are few intents to share the mass with: the
 * probability depends on how close the message is, as in a tenant of this size.
 */
export const INTERIM_REFERENCE_INTENTS = 150;

export interface InterimOptions {
  temperature: number;
  referenceIntents: number;
}

export const DEFAULT_INTERIM_OPTIONS: Readonly<InterimOptions> = Object.freeze({
  temperature: INTERIM_TEMPERATURE,
  referenceIntents: INTERIM_REFERENCE_INTENTS,
});

/**
 * Per-intent probabilities from per-intent similarities: `exp(s_i / T) / Z` for `s_i > 0`, 0 otherwise
 * (an intent sharing no feature with the message is no candidate, as on the classifier path), where `Z`
 * sums `exp(s_j / T)` over every intent and counts `max(0, referenceIntents − n)` more at similarity 0.
 */
export function interimProbabilities(similarities: Float32Array, opts: InterimOptions = DEFAULT_INTERIM_OPTIONS): Float32Array {
  const n = similarities.length;
  const out = new Float32Array(n);
  if (!(opts.temperature > 0)) throw new Error('the interim temperature must be positive');
  let top = 0;
  for (let i = 0; i < n; i++) if (similarities[i] > top) top = similarities[i];
  if (top <= 0) return out;
  // shifted by the top similarity: exp never overflows
  const atZero = Math.exp(-top / opts.temperature);
  let z = Math.max(0, opts.referenceIntents - n) * atZero;
  for (let i = 0; i < n; i++) {
    const s = similarities[i];
    const e = s > 0 ? Math.exp((s - top) / opts.temperature) : atZero;
    z += e;
    if (s > 0) out[i] = e;
  }
  for (let i = 0; i < n; i++) out[i] /= z;
  return out;
}

/**
 * Serving a carried-over classifier beside the interim matcher: an intent the classifier does not know as
 * it is now (`changed[i]`) takes the interim probability; every other intent keeps the classifier's,
 * scaled by the mass the interim matcher leaves to the unchanged intents. So the order among unchanged
 * intents is the classifier's, and a message that looks like none of the changed intents is scored as
 * before the edit (a factor within a hair of 1).
 */
export function blendWithInterim(classifier: Float32Array, interim: Float32Array, changed: Uint8Array): Float32Array {
  const n = classifier.length;
  if (interim.length !== n || changed.length !== n) throw new Error('classifier, interim and changed scores must cover the same intents');
  let changedMass = 0;
  for (let i = 0; i < n; i++) if (changed[i] === 1) changedMass += interim[i];
  const rest = Math.max(0, 1 - changedMass);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = changed[i] === 1 ? interim[i] : classifier[i] * rest;
  return out;
}

/**
 * A fingerprint of one intent's examples (their texts in order; FNV-1a, two seeds): the serving
 * classifier knows an intent "as it is now" when the fingerprint it was trained on is the current one.
 */
export function examplesFingerprint(texts: readonly string[]): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (const text of texts) {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 13);
    }
    // a separator no text contains at this position: ['ab'] and ['a', 'b'] differ
    a = Math.imul(a ^ 0x1f, 0x01000193);
    b = Math.imul(b ^ 0x1f, 0x01000193) ^ (b >>> 13);
  }
  return `${texts.length}:${(a >>> 0).toString(16)}${(b >>> 0).toString(16)}`;
}
