/**
 * Confidence calibration (docs/learning.md "Calibration"): isotonic regression of "the named intent
 * was right" on the fused confidence, fitted on labelled data, so that a calibrated confidence reads
 * as a probability. Pure: no Nest, no database.
 */

/** One observation: a fused confidence and whether the decision it belonged to was right. */
export interface CalibrationSample {
  confidence: number;
  correct: boolean;
}

/**
 * A monotone, piecewise-linear map of confidence → probability: `x` ascending, `y` non-decreasing,
 * both in [0, 1]. Below the first knot → `y[0]`, above the last → the last `y`.
 */
export interface IsotonicCalibration {
  method: 'isotonic';
  x: number[];
  y: number[];
  /** Observations it was fitted on. */
  samples: number;
}

const round = (v: number): number => Math.round(v * 1e4) / 1e4;

/**
 * Pool-adjacent-violators on samples sorted by confidence; each final block becomes one knot at its
 * mean confidence with its share of correct decisions. Knots are interpolated linearly, so two
 * nearby confidences never get far-apart probabilities.
 */
export function fitIsotonic(samples: readonly CalibrationSample[]): IsotonicCalibration {
  if (samples.length === 0) return { method: 'isotonic', x: [0, 1], y: [0, 1], samples: 0 };
  const sorted = [...samples].sort((a, b) => a.confidence - b.confidence);
  // blocks: sum of confidence, sum of correct, weight
  const sx: number[] = [];
  const sy: number[] = [];
  const w: number[] = [];
  for (const s of sorted) {
    sx.push(s.confidence);
    sy.push(s.correct ? 1 : 0);
    w.push(1);
    while (sy.length >= 2) {
      const n = sy.length;
      if (sy[n - 2] / w[n - 2] <= sy[n - 1] / w[n - 1]) break;
      sx[n - 2] += sx[n - 1];
      sy[n - 2] += sy[n - 1];
      w[n - 2] += w[n - 1];
      sx.pop();
      sy.pop();
      w.pop();
    }
  }
  const x: number[] = [];
  const y: number[] = [];
  for (let i = 0; i < w.length; i++) {
    const xi = round(sx[i] / w[i]);
    const yi = round(sy[i] / w[i]);
    // equal rounded knots: keep the later (higher) probability so the map stays a function
    if (x.length > 0 && x[x.length - 1] === xi) y[y.length - 1] = Math.max(y[y.length - 1], yi);
    else {
      x.push(xi);
      y.push(yi);
    }
  }
  return { method: 'isotonic', x, y, samples: samples.length };
}

/** Applies a calibration map to one confidence (clamped to [0, 1]). */
export function applyCalibration(cal: Pick<IsotonicCalibration, 'x' | 'y'>, confidence: number): number {
  const { x, y } = cal;
  if (x.length === 0) return confidence;
  if (confidence <= x[0]) return y[0];
  const last = x.length - 1;
  if (confidence >= x[last]) return y[last];
  let lo = 0;
  let hi = last;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (x[mid] <= confidence) lo = mid;
    else hi = mid;
  }
  const t = (confidence - x[lo]) / (x[hi] - x[lo]);
  return round(y[lo] + t * (y[hi] - y[lo]));
}

export interface ReliabilityBin {
  /** Bin bounds [from, to) (the last bin includes 1). */
  from: number;
  to: number;
  count: number;
  /** Mean confidence of the samples in the bin (null when empty). */
  meanConfidence: number | null;
  /** Share of right decisions in the bin (null when empty). */
  accuracy: number | null;
}

export interface ReliabilityReport {
  /** Expected calibration error: Σ (n_b / n) · |accuracy_b − meanConfidence_b|. */
  ece: number;
  bins: ReliabilityBin[];
  samples: number;
}

/** ECE and reliability-diagram bins (equal width) of a set of samples. */
export function reliability(samples: readonly CalibrationSample[], binCount = 10): ReliabilityReport {
  const sums = Array.from({ length: binCount }, () => ({ n: 0, conf: 0, correct: 0 }));
  for (const s of samples) {
    const b = Math.min(binCount - 1, Math.max(0, Math.floor(s.confidence * binCount)));
    sums[b].n++;
    sums[b].conf += s.confidence;
    if (s.correct) sums[b].correct++;
  }
  let ece = 0;
  const bins = sums.map((b, i) => {
    if (b.n > 0) ece += (b.n / samples.length) * Math.abs(b.correct / b.n - b.conf / b.n);
    return {
      from: round(i / binCount),
      to: round((i + 1) / binCount),
      count: b.n,
      meanConfidence: b.n === 0 ? null : round(b.conf / b.n),
      accuracy: b.n === 0 ? null : round(b.correct / b.n),
    };
  });
  return { ece: round(ece), bins, samples: samples.length };
}

/** Validates a stored/submitted calibration map; returns the problem or null. */
export function calibrationProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'calibration must be an object';
  const v = value as Record<string, unknown>;
  if (v.method !== 'isotonic') return 'calibration.method must be "isotonic"';
  const { x, y } = v;
  if (!Array.isArray(x) || !Array.isArray(y)) return 'calibration.x and calibration.y must be arrays';
  if (x.length !== y.length || x.length === 0 || x.length > 1000) return 'calibration.x and calibration.y must have the same length (1..1000)';
  for (let i = 0; i < x.length; i++) {
    const xi: unknown = x[i];
    const yi: unknown = y[i];
    if (typeof xi !== 'number' || typeof yi !== 'number' || !Number.isFinite(xi) || !Number.isFinite(yi) || xi < 0 || xi > 1 || yi < 0 || yi > 1) {
      return `calibration.x[${i}] and calibration.y[${i}] must be numbers within [0, 1]`;
    }
    if (i > 0 && (xi <= (x[i - 1] as number) || yi < (y[i - 1] as number))) return 'calibration.x must ascend strictly and calibration.y must not descend';
  }
  return null;
}
