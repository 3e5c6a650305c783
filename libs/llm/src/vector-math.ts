/** Small dense-vector helpers (pure). */

export function l2Norm(v: readonly number[]): number {
  let s = 0;
  for (const x of v) s += x * x;
  return Math.sqrt(s);
}

/** Returns `v / |v|`; throws on a zero, empty or non-finite vector (it has no direction). */
export function l2Normalize(v: readonly number[]): number[] {
  const norm = l2Norm(v);
  if (!Number.isFinite(norm) || norm === 0) throw new RangeError(`cannot normalize a vector of norm ${norm} (length ${v.length})`);
  return v.map((x) => x / norm);
}

export function dot(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) throw new RangeError(`dimension mismatch: ${a.length} vs ${b.length}`);
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/** Cosine similarity in [-1, 1] (0 when either vector is zero). */
export function cosineSimilarity(a: readonly number[], b: readonly number[]): number {
  const na = l2Norm(a);
  const nb = l2Norm(b);
  return na === 0 || nb === 0 ? 0 : dot(a, b) / (na * nb);
}

export function l2Distance(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) throw new RangeError(`dimension mismatch: ${a.length} vs ${b.length}`);
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i] - b[i]) ** 2;
  return Math.sqrt(s);
}
