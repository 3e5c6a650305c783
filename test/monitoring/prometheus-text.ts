/**
 * A strict parser of the Prometheus text exposition format (version 0.0.4), for tests: every line must
 * be a HELP/TYPE comment or a well-formed sample; every sample must belong to a family declared by a
 * TYPE line before it; histograms must have cumulative buckets ending in le="+Inf" equal to _count.
 * Throws with the offending line number on any violation.
 */
export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: MetricType;
  help: string | null;
  samples: Sample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL_NAME = '[a-zA-Z_][a-zA-Z0-9_]*';
const LABEL_VALUE = '(?:[^"\\\\\\n]|\\\\[\\\\"n])*';
const VALUE = '(?:[+-]?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][+-]?\\d+)?|[+-]?Inf|NaN)';
const LABEL = `${LABEL_NAME}="${LABEL_VALUE}"`;
const SAMPLE_RE = new RegExp(`^(${NAME})(?:\\{((?:${LABEL})(?:,${LABEL})*,?)?\\})? (${VALUE})(?: (-?\\d+))?$`);
const LABEL_RE = new RegExp(`(${LABEL_NAME})="(${LABEL_VALUE})"`, 'g');
const HELP_RE = new RegExp(`^# HELP (${NAME}) (.*)$`);
const TYPE_RE = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`);

function parseValue(raw: string): number {
  if (/^[+]?Inf$/.test(raw)) return Number.POSITIVE_INFINITY;
  if (raw === '-Inf') return Number.NEGATIVE_INFINITY;
  if (raw === 'NaN') return Number.NaN;
  return Number(raw);
}

function familyOf(sample: string, families: Map<string, Family>): Family | undefined {
  const direct = families.get(sample);
  if (direct) return direct;
  for (const suffix of ['_bucket', '_sum', '_count', '_total', '_created']) {
    if (!sample.endsWith(suffix)) continue;
    const f = families.get(sample.slice(0, -suffix.length));
    if (!f) continue;
    if ((suffix === '_bucket' && f.type !== 'histogram') || ((suffix === '_sum' || suffix === '_count') && f.type !== 'histogram' && f.type !== 'summary'))
      continue;
    return f;
  }
  return undefined;
}

export function parsePrometheusText(text: string): Map<string, Family> {
  if (text.length > 0 && !text.endsWith('\n')) throw new Error('exposition must end with a newline');
  const families = new Map<string, Family>();
  const helps = new Map<string, string>();
  const lines = text.split('\n');
  lines.pop();
  lines.forEach((line, i) => {
    const where = `line ${i + 1}: ${JSON.stringify(line)}`;
    if (line === '') return;
    if (line.startsWith('#')) {
      const help = HELP_RE.exec(line);
      if (help) {
        if (helps.has(help[1]!)) throw new Error(`duplicate HELP, ${where}`);
        helps.set(help[1]!, help[2]!);
        return;
      }
      const type = TYPE_RE.exec(line);
      if (type) {
        if (families.has(type[1]!)) throw new Error(`duplicate TYPE, ${where}`);
        families.set(type[1]!, { name: type[1]!, type: type[2] as MetricType, help: helps.get(type[1]!) ?? null, samples: [] });
        return;
      }
      if (/^# (HELP|TYPE) /.test(line)) throw new Error(`malformed ${line.slice(2, 6)}, ${where}`);
      return; // other comments are allowed
    }
    const m = SAMPLE_RE.exec(line);
    if (!m) throw new Error(`malformed sample, ${where}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL_RE)) {
      if (l[1]! in labels) throw new Error(`duplicate label ${l[1]}, ${where}`);
      labels[l[1]!] = l[2]!;
    }
    const family = familyOf(m[1]!, families);
    if (!family) throw new Error(`sample without a preceding TYPE, ${where}`);
    const value = parseValue(m[3]!);
    if (family.type === 'counter' && !(value >= 0)) throw new Error(`negative or NaN counter, ${where}`);
    family.samples.push({ name: m[1]!, labels, value });
  });
  for (const f of families.values()) if (f.type === 'histogram') checkHistogram(f);
  return families;
}

function checkHistogram(f: Family): void {
  const series = new Map<string, { buckets: { le: number; value: number }[]; count?: number; sum?: number }>();
  const keyOf = (labels: Record<string, string>) =>
    JSON.stringify(
      Object.entries(labels)
        .filter(([k]) => k !== 'le')
        .sort(([a], [b]) => (a < b ? -1 : 1)),
    );
  for (const s of f.samples) {
    const key = keyOf(s.labels);
    const entry = series.get(key) ?? { buckets: [] };
    series.set(key, entry);
    if (s.name === `${f.name}_bucket`) {
      if (s.labels.le === undefined) throw new Error(`${f.name}_bucket without le`);
      entry.buckets.push({ le: parseValue(s.labels.le), value: s.value });
    } else if (s.name === `${f.name}_count`) entry.count = s.value;
    else if (s.name === `${f.name}_sum`) entry.sum = s.value;
    else throw new Error(`unexpected sample ${s.name} in histogram ${f.name}`);
  }
  for (const [key, e] of series) {
    const last = e.buckets[e.buckets.length - 1];
    if (!last || last.le !== Number.POSITIVE_INFINITY) throw new Error(`histogram ${f.name}${key} lacks le="+Inf"`);
    for (let i = 1; i < e.buckets.length; i++) {
      if (!(e.buckets[i]!.le > e.buckets[i - 1]!.le)) throw new Error(`histogram ${f.name}${key} buckets not increasing`);
      if (e.buckets[i]!.value < e.buckets[i - 1]!.value) throw new Error(`histogram ${f.name}${key} buckets not cumulative`);
    }
    if (e.count === undefined || e.sum === undefined) throw new Error(`histogram ${f.name}${key} lacks _count or _sum`);
    if (last.value !== e.count) throw new Error(`histogram ${f.name}${key}: +Inf bucket ${last.value} != _count ${e.count}`);
  }
}
