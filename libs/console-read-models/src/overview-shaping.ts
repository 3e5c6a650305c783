/** Pure shaping of the console overview's figures (no Nest, no database). */

/** Self-evaluation confidence bins: ten of width 10 over 0..100. */
export const CONFIDENCE_BIN_COUNT = 10;
const CONFIDENCE_BIN_WIDTH = 100 / CONFIDENCE_BIN_COUNT;

export interface ConfidenceBin {
  /** Lower bound, inclusive. */
  from: number;
  /** Upper bound, exclusive except for the last bin (100 is in 90..100). */
  to: number;
  count: number;
}

/** Every bin in order, zeros included, from the non-empty ones (`bin` 1..10, as width_bucket numbers them). */
export function confidenceHistogram(rows: readonly { bin: number; count: number }[]): ConfidenceBin[] {
  const bins: ConfidenceBin[] = Array.from({ length: CONFIDENCE_BIN_COUNT }, (_, i) => ({
    from: i * CONFIDENCE_BIN_WIDTH,
    to: (i + 1) * CONFIDENCE_BIN_WIDTH,
    count: 0,
  }));
  for (const r of rows) {
    const bin = bins[r.bin - 1];
    if (!Number.isInteger(r.bin) || bin === undefined) throw new Error(`confidence bin ${r.bin} is outside 1..${CONFIDENCE_BIN_COUNT}`);
    bin.count += r.count;
  }
  return bins;
}

/**
 * Decision reasons as the monitoring stats count them: a reason outside `known` counts as `other`, zero
 * counts are left out.
 */
export function foldDecisionReasons(raw: Readonly<Record<string, number>>, known: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [reason, count] of Object.entries(raw)) {
    if (count <= 0) continue;
    const key = known.includes(reason) ? reason : 'other';
    out[key] = (out[key] ?? 0) + count;
  }
  return out;
}

/** Every status, zeros included. */
export function countsOf<S extends string>(statuses: readonly S[], counts: Partial<Record<S, number>>): Record<S, number> {
  return Object.fromEntries(statuses.map((s) => [s, counts[s] ?? 0])) as Record<S, number>;
}

export interface ReliabilityPoint {
  x: number;
  y: number;
}

export interface Reliability {
  method: 'isotonic';
  samples: number;
  /** The knots of the stored map: fused confidence x → calibrated probability y, x ascending. */
  points: ReliabilityPoint[];
}

/** The stored isotonic calibration as knots, or null when the tenant's config has none. */
export function reliabilityOf(calibration: { method: 'isotonic'; x: readonly number[]; y: readonly number[]; samples?: number } | null): Reliability | null {
  if (calibration === null) return null;
  return {
    method: calibration.method,
    samples: calibration.samples ?? 0,
    points: calibration.x.map((x, i) => ({ x, y: calibration.y[i] as number })),
  };
}
