/**
 * Replay report (docs/learning.md "Replay"): how logged decisions change under a candidate config or draft
 * rule set. Pure: the job feeds decisions one by one into a tally (JSON-safe, saved as the job's checkpoint so
 * a resumed replay continues it) and turns it into the report at the end.
 */

export interface DecisionOutcome {
  intent: string | null;
  reason: string;
  needClarify: boolean;
  confidence: number;
}

export interface ReplayedDecision {
  decisionId: string;
  message: string;
  before: DecisionOutcome;
  after: DecisionOutcome;
  /** The operator's label (null = out of scope); undefined when the decision is not labelled. */
  label?: string | null;
}

export interface ReplayTally {
  total: number;
  changed: number;
  intentChanged: number;
  clarifyChanged: number;
  /** Replayed decisions where the candidate config would have consulted the judge (not called in a replay). */
  judgeWouldRun: number;
  /** "from␟to" → count, changed intents only. */
  transitions: Record<string, number>;
  /** "from␟to" → count of decision reasons, changed decisions only. */
  reasonTransitions: Record<string, number>;
  /** Per intent decided before: total and changed. */
  byIntent: Record<string, { total: number; changed: number }>;
  samples: ReplayedDecision[];
  labelled: { total: number; correctBefore: number; correctAfter: number };
}

export const REPLAY_SAMPLE_LIMIT = 20;
export const REPLAY_TRANSITION_LIMIT = 50;
/** Key of "no intent" in the tally's maps (intent names are never empty). */
const NONE = '';
// a control character no intent name holds; not NUL, which jsonb (the checkpoint) refuses
const SEP = '\u001f';

export function emptyTally(): ReplayTally {
  return {
    total: 0,
    changed: 0,
    intentChanged: 0,
    clarifyChanged: 0,
    judgeWouldRun: 0,
    transitions: {},
    reasonTransitions: {},
    byIntent: {},
    samples: [],
    labelled: { total: 0, correctBefore: 0, correctAfter: 0 },
  };
}

/** Adds one replayed decision. A decision changes when its intent or its clarify flag changes. */
export function tally(t: ReplayTally, d: ReplayedDecision, judgeWouldRun: boolean): void {
  t.total++;
  if (judgeWouldRun) t.judgeWouldRun++;
  const intentChanged = d.before.intent !== d.after.intent;
  const clarifyChanged = d.before.needClarify !== d.after.needClarify;
  const changed = intentChanged || clarifyChanged;
  const fromKey = d.before.intent ?? NONE;
  const per = (t.byIntent[fromKey] ??= { total: 0, changed: 0 });
  per.total++;
  if (changed) {
    t.changed++;
    per.changed++;
    const reasons = `${d.before.reason}${SEP}${d.after.reason}`;
    t.reasonTransitions[reasons] = (t.reasonTransitions[reasons] ?? 0) + 1;
    if (t.samples.length < REPLAY_SAMPLE_LIMIT) t.samples.push(d);
  }
  if (intentChanged) {
    t.intentChanged++;
    const key = `${fromKey}${SEP}${d.after.intent ?? NONE}`;
    t.transitions[key] = (t.transitions[key] ?? 0) + 1;
  }
  if (clarifyChanged) t.clarifyChanged++;
  if (d.label !== undefined) {
    t.labelled.total++;
    if (d.before.intent === d.label) t.labelled.correctBefore++;
    if (d.after.intent === d.label) t.labelled.correctAfter++;
  }
}

export interface ReplayReport {
  total: number;
  changed: number;
  intentChanged: number;
  clarifyChanged: number;
  judgeWouldRun: number;
  /** Most frequent intent changes (null = no intent), at most 50. */
  transitions: { from: string | null; to: string | null; count: number }[];
  reasonTransitions: { from: string; to: string; count: number }[];
  byIntent: { intent: string | null; total: number; changed: number }[];
  samples: ReplayedDecision[];
  /** Accuracy on decisions an operator labelled (null when none are). */
  labelled: { total: number; accuracyBefore: number | null; accuracyAfter: number | null };
}

const orNull = (key: string): string | null => (key === NONE ? null : key);

function pairs(map: Record<string, number>, limit: number): { from: string; to: string; count: number }[] {
  return Object.entries(map)
    .map(([key, count]) => {
      const [from = '', to = ''] = key.split(SEP);
      return { from, to, count };
    })
    .sort((a, b) => b.count - a.count || a.from.localeCompare(b.from) || a.to.localeCompare(b.to))
    .slice(0, limit);
}

export function replayReport(t: ReplayTally): ReplayReport {
  const { total, correctBefore, correctAfter } = t.labelled;
  return {
    total: t.total,
    changed: t.changed,
    intentChanged: t.intentChanged,
    clarifyChanged: t.clarifyChanged,
    judgeWouldRun: t.judgeWouldRun,
    transitions: pairs(t.transitions, REPLAY_TRANSITION_LIMIT).map((p) => ({ from: orNull(p.from), to: orNull(p.to), count: p.count })),
    reasonTransitions: pairs(t.reasonTransitions, REPLAY_TRANSITION_LIMIT),
    byIntent: Object.entries(t.byIntent)
      .map(([intent, v]) => ({ intent: orNull(intent), ...v }))
      .sort((a, b) => b.changed - a.changed || b.total - a.total || String(a.intent).localeCompare(String(b.intent))),
    samples: t.samples,
    labelled: { total, accuracyBefore: total === 0 ? null : correctBefore / total, accuracyAfter: total === 0 ? null : correctAfter / total },
  };
}
