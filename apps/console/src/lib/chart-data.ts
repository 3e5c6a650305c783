/** Shapes API figures into what the charts draw (pure; docs/console.md "Overview"). */

export interface DayCoverage {
  date: string;
  evaluated: number;
  covered: number;
  rate: number | null;
}

/** Every day of the window in order, with gaps filled: a day without evaluations is a gap in the line (null), not 0 %. */
export function coverageSeries(
  days: readonly DayCoverage[],
  from: string,
  to: string,
): { dates: string[]; ratePercent: (number | null)[]; evaluated: number[] } {
  const byDate = new Map(days.map((day) => [day.date, day]));
  const dates: string[] = [];
  const start = new Date(`${from}T00:00:00Z`);
  const end = new Date(`${to}T00:00:00Z`);
  if (Number.isNaN(start.getTime()) || Number.isNaN(end.getTime())) return { dates: [], ratePercent: [], evaluated: [] };
  for (let day = start; day <= end && dates.length < 400; day = new Date(day.getTime() + 86_400_000)) dates.push(day.toISOString().slice(0, 10));
  return {
    dates,
    ratePercent: dates.map((date) => {
      const rate = byDate.get(date)?.rate;
      return rate === null || rate === undefined ? null : Math.round(rate * 1000) / 10;
    }),
    evaluated: dates.map((date) => byDate.get(date)?.evaluated ?? 0),
  };
}

/** Decision reasons with a count, largest first (ties by name, so the legend is stable). */
export function reasonSlices(reasons: Readonly<Record<string, number>>): { name: string; value: number }[] {
  return Object.entries(reasons)
    .filter(([, value]) => value > 0)
    .map(([name, value]) => ({ name, value }))
    .sort((a, b) => b.value - a.value || a.name.localeCompare(b.name));
}

export interface HistogramBin {
  from: number;
  to: number;
  count: number;
}

/** Bars of a histogram labelled "0–10"…"90–100". */
export function histogramBars(bins: readonly HistogramBin[]): { labels: string[]; counts: number[] } {
  const sorted = [...bins].sort((a, b) => a.from - b.from);
  return { labels: sorted.map((bin) => `${trim(bin.from)}–${trim(bin.to)}`), counts: sorted.map((bin) => bin.count) };
}

/** A knot of the router's isotonic calibration: raw fused confidence x → fitted P(named intent is right) y. */
export interface ReliabilityPoint {
  x: number;
  y: number;
}

/**
 * The calibration map drawn as a reliability curve (raw confidence vs the accuracy it was fitted to) next to the
 * diagonal a perfectly calibrated router would follow; knots sorted and clamped to [0, 1].
 */
export function reliabilityLine(points: readonly ReliabilityPoint[]): { observed: [number, number][]; ideal: [number, number][] } {
  const clamp = (value: number) => Math.min(1, Math.max(0, value));
  return {
    observed: [...points].sort((a, b) => a.x - b.x).map((point) => [round(clamp(point.x)), round(clamp(point.y))]),
    ideal: [
      [0, 0],
      [1, 1],
    ],
  };
}

/** Progress of a job in [0, 1] when its total is known, else null (the bar is then indeterminate). */
export function jobProgress(processed: number, total: number | null | undefined): number | null {
  if (total === null || total === undefined || !Number.isFinite(total) || total <= 0) return null;
  return Math.min(1, Math.max(0, processed / total));
}

function trim(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
