/** Turns the stats aggregate rows into the response (pure: no Nest, no database). */
export const STATS_SESSION_STATUSES = ['PENDING', 'RUNNING', 'SUCCESS', 'FAILED', 'BAD_CASE'] as const;

/**
 * Decision reasons of the intent module's FusionPolicy, in the order of `SessionStatsInput.reasons`:
 * today's, then `semantic_fallback`, which traces stored before 2026-11-30 still carry.
 */
export const STATS_DECISION_REASONS = ['rule_high_confidence', 'semantic_override', 'no_match', 'llm_judge', 'fusion_fallback', 'semantic_fallback'] as const;

type Num = number | string | null;

export interface SessionStatsInput {
  day: string | null;
  n: Num;
  pending: Num;
  running: Num;
  success: Num;
  failed: Num;
  badCase: Num;
  /** One count per STATS_DECISION_REASONS entry, then `other`. */
  reasons: Num[];
  routed: Num;
  clarify: Num;
  judgeCalls: Num;
  judgeTokens: Num;
  llmCount: Num;
  llmMean: Num;
  ruleCount: Num;
  ruleMean: Num;
  useful: Num;
  notUseful: Num;
  latencyCount: Num;
  latency: Num[] | null;
}

export interface CoverageStatsInput {
  day: string | null;
  n: Num;
  covered: Num;
}

export interface StatsBucket {
  sessions: number;
  byStatus: Record<(typeof STATS_SESSION_STATUSES)[number], number>;
  /** route_trace.fusion.decisionReason → sessions. */
  decisionReasons: Record<string, number>;
  /** Sessions that carry a route trace (the denominator of the routing rates). */
  routedSessions: number;
  clarifyRate: number | null;
  judge: { calls: number; callRate: number | null; tokens: number };
  /** Self-evaluation source (llm | rule) → count and mean confidence (0..100). */
  selfEvaluation: Record<string, { count: number; meanConfidence: number | null }>;
  coverage: { evaluated: number; covered: number; rate: number | null };
  feedback: { useful: number; notUseful: number };
  latencyMs: { count: number; p50: number | null; p95: number | null };
}

export interface AssembledStats {
  totals: StatsBucket;
  byDay: ({ date: string } & StatsBucket)[];
}

export function emptyBucket(): StatsBucket {
  return {
    sessions: 0,
    byStatus: { PENDING: 0, RUNNING: 0, SUCCESS: 0, FAILED: 0, BAD_CASE: 0 },
    decisionReasons: {},
    routedSessions: 0,
    clarifyRate: null,
    judge: { calls: 0, callRate: null, tokens: 0 },
    selfEvaluation: {},
    coverage: { evaluated: 0, covered: 0, rate: null },
    feedback: { useful: 0, notUseful: 0 },
    latencyMs: { count: 0, p50: null, p95: null },
  };
}

const ratio = (num: number, den: number): number | null => (den > 0 ? num / den : null);
const num = (v: Num | undefined): number | null => (v === null || v === undefined ? null : Number(v));
const int = (v: Num | undefined): number => Number(v ?? 0);

/** Builds the response from the session and coverage aggregate rows (day null = the whole window). */
export function assembleStats(sessions: readonly SessionStatsInput[], coverage: readonly CoverageStatsInput[]): AssembledStats {
  const totals = emptyBucket();
  const days = new Map<string, StatsBucket>();
  const bucketOf = (day: string | null): StatsBucket => {
    if (day === null) return totals;
    let b = days.get(day);
    if (!b) days.set(day, (b = emptyBucket()));
    return b;
  };
  for (const r of sessions) {
    const b = bucketOf(r.day);
    b.sessions = int(r.n);
    b.byStatus = { PENDING: int(r.pending), RUNNING: int(r.running), SUCCESS: int(r.success), FAILED: int(r.failed), BAD_CASE: int(r.badCase) };
    b.decisionReasons = {};
    [...STATS_DECISION_REASONS, 'other'].forEach((reason, i) => {
      const count = int(r.reasons[i]);
      if (count > 0) b.decisionReasons[reason] = count;
    });
    b.routedSessions = int(r.routed);
    b.clarifyRate = ratio(int(r.clarify), b.routedSessions);
    const calls = int(r.judgeCalls);
    b.judge = { calls, callRate: ratio(calls, b.routedSessions), tokens: int(r.judgeTokens) };
    b.selfEvaluation = {};
    if (int(r.llmCount) > 0) b.selfEvaluation.llm = { count: int(r.llmCount), meanConfidence: num(r.llmMean) };
    if (int(r.ruleCount) > 0) b.selfEvaluation.rule = { count: int(r.ruleCount), meanConfidence: num(r.ruleMean) };
    b.feedback = { useful: int(r.useful), notUseful: int(r.notUseful) };
    b.latencyMs = { count: int(r.latencyCount), p50: num(r.latency?.[0]), p95: num(r.latency?.[1]) };
  }
  for (const r of coverage) {
    const b = bucketOf(r.day);
    const evaluated = int(r.n);
    const covered = int(r.covered);
    b.coverage = { evaluated, covered, rate: ratio(covered, evaluated) };
  }
  const byDay = [...days.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([date, bucket]) => ({ date, ...bucket }));
  return { totals, byDay };
}

/** snake_case → camelCase for the top-level keys of a stored JSON object (HTTP JSON is camelCase). */
export function camelKeys(value: Record<string, unknown> | null): Record<string, unknown> | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())] = v;
  return out;
}
