/**
 * Failure attribution (issue 14, item 6; docs/learning.md "Failure attribution"): every bad case and every
 * uncovered session gets exactly one layer — routing, retrieval, knowledge gap or answer generation — by
 * an ordered table of rules over what the session stores. Pure: no Nest, no database. The facts are read
 * by `failureFactsSql` (one SQL projection, so a single item and a grouped report decide alike).
 */

export const FAILURE_LAYERS = ['routing', 'retrieval', 'knowledge_gap', 'answer_generation'] as const;
export type FailureLayer = (typeof FAILURE_LAYERS)[number];

/** A routed decision whose `finalConfidence` is below this counts as an unsure routing (1 - it = the router's own doubt). */
export const LOW_ROUTING_CONFIDENCE = 0.5;

/** Tool name of the retrieval lib's knowledge lookup (`tool_invocation.tool_name`); rows with a relevance level count too. */
export const KNOWLEDGE_LOOKUP_TOOL = 'lookup_knowledge';

/** What a session's stored trace says, reduced to the facts the rules read (all discrete, so reports can group on them). */
export interface FailureFacts {
  /** The run itself failed (status FAILED or outcome FAILED). */
  runFailed: boolean;
  feedback: 'useful' | 'not_useful' | null;
  /** The coverage decision of the current evaluator version, if any. */
  coverageReason: string | null;
  /** `route_trace.decisionReason` (null when the session was not routed). */
  decisionReason: string | null;
  /** `route_trace.needClarify`. */
  needClarify: boolean;
  /** `route_trace.finalConfidence` is a number below LOW_ROUTING_CONFIDENCE. */
  routingConfidenceLow: boolean;
  /** `route_trace.chat.branch` (chat sessions), else null. */
  branch: string | null;
  /** An operator labelled the bad case with an intent other than the one it was routed to (`bad_case_label`). */
  labelDisagrees: boolean;
  knowledgeSearched: boolean;
  /** The session stored at least one source reference. */
  hasReferences: boolean;
  /** At least one knowledge lookup (tool invocation) was recorded. */
  lookedUp: boolean;
  /** A knowledge lookup failed (tool invocation status FAILED). */
  lookupFailed: boolean;
  /** A lookup graded PRECISE or HIGHLY_RELEVANT. */
  gradeSufficient: boolean;
  /** A lookup graded REFERENCE with completeness PARTIAL (something near the question, below relevant). */
  gradePartial: boolean;
  /** The reply says it has no answer: the chat's not-found exit or coverage `uncovered_explicit_no_answer`. */
  saidNoAnswer: boolean;
}

export interface FailureAttribution {
  layer: FailureLayer;
  /** Which rule decided (stable snake_case; the table in docs/learning.md). */
  reason: FailureReason;
}

interface FailureRule {
  layer: FailureLayer;
  reason: string;
  when: (f: FailureFacts) => boolean;
}

/**
 * The rules, first match wins. Upstream layers come first: a turn routed to the wrong intent looks up and
 * answers the wrong thing, and a lookup that failed leaves nothing to answer from — the earliest layer that
 * went wrong is the one to fix. The last rule catches everything, so every session gets a layer.
 */
export const FAILURE_RULES = [
  { layer: 'routing', reason: 'labelled_other_intent', when: (f) => f.labelDisagrees },
  { layer: 'routing', reason: 'clarify', when: (f) => f.needClarify || f.branch === 'clarify' },
  { layer: 'routing', reason: 'no_match_answerable', when: (f) => f.decisionReason === 'no_match' && f.gradeSufficient },
  { layer: 'routing', reason: 'low_routing_confidence', when: (f) => f.routingConfidenceLow && f.decisionReason !== 'no_match' },
  { layer: 'retrieval', reason: 'lookup_failed', when: (f) => f.lookupFailed },
  { layer: 'retrieval', reason: 'low_grade', when: (f) => f.lookedUp && !f.gradeSufficient && f.gradePartial },
  { layer: 'knowledge_gap', reason: 'nothing_relevant', when: (f) => f.lookedUp && !f.gradeSufficient },
  {
    layer: 'knowledge_gap',
    reason: 'no_references',
    when: (f) => f.coverageReason === 'uncovered_no_references' || (f.knowledgeSearched && !f.hasReferences && !f.gradeSufficient),
  },
  { layer: 'answer_generation', reason: 'said_no_answer', when: (f) => f.saidNoAnswer },
  { layer: 'answer_generation', reason: 'run_failed', when: (f) => f.runFailed },
  { layer: 'answer_generation', reason: 'case_answer_not_useful', when: (f) => f.branch === 'case_library' },
  { layer: 'answer_generation', reason: 'configured_reply_not_useful', when: (f) => f.branch === 'rule_answer' || f.branch === 'transfer' },
  { layer: 'answer_generation', reason: 'answer_not_useful', when: (f) => f.gradeSufficient || f.hasReferences },
  { layer: 'answer_generation', reason: 'unexplained', when: () => true },
] as const satisfies readonly FailureRule[];

export type FailureReason = (typeof FAILURE_RULES)[number]['reason'];
export const FAILURE_REASONS: readonly FailureReason[] = FAILURE_RULES.map((r) => r.reason);

export function attributeFailure(facts: FailureFacts): FailureAttribution {
  for (const rule of FAILURE_RULES as readonly FailureRule[]) {
    if (rule.when(facts)) return { layer: rule.layer, reason: rule.reason as FailureReason };
  }
  // Unreachable: the last rule always matches.
  throw new Error('no failure rule matched');
}

/** Counts per layer and per reason, zeros included (for the reports). */
export interface LayerCounts {
  byLayer: Record<FailureLayer, number>;
  byReason: Record<FailureReason, number>;
}

export function emptyLayerCounts(): LayerCounts {
  return {
    byLayer: Object.fromEntries(FAILURE_LAYERS.map((l) => [l, 0])) as Record<FailureLayer, number>,
    byReason: Object.fromEntries(FAILURE_REASONS.map((r) => [r, 0])) as Record<FailureReason, number>,
  };
}

/** Adds `count` sessions with these facts to `into` (a report groups identical facts in SQL and adds each group once). */
export function addAttribution(into: LayerCounts, facts: FailureFacts, count = 1): FailureAttribution {
  const a = attributeFailure(facts);
  into.byLayer[a.layer] += count;
  into.byReason[a.reason] += count;
  return a;
}

/** The most frequent layer of a group; ties go to the upstream layer (FAILURE_LAYERS order). Null for an empty group. */
export function dominantLayer(byLayer: Record<FailureLayer, number>): FailureLayer | null {
  let best: FailureLayer | null = null;
  for (const layer of FAILURE_LAYERS) if (byLayer[layer] > 0 && (best === null || byLayer[layer] > byLayer[best])) best = layer;
  return best;
}

/** Column aliases of `failureFactsSql`, as the driver returns them. */
export interface FailureFactsRow {
  ff_run_failed: boolean;
  ff_feedback: string | null;
  ff_coverage_reason: string | null;
  ff_decision_reason: string | null;
  ff_need_clarify: boolean;
  ff_routing_low: boolean;
  ff_branch: string | null;
  ff_label_disagrees: boolean;
  ff_knowledge_searched: boolean;
  ff_has_references: boolean;
  ff_looked_up: boolean;
  ff_lookup_failed: boolean;
  ff_grade_sufficient: boolean;
  ff_grade_partial: boolean;
  ff_said_no_answer: boolean;
}

export const FAILURE_FACT_COLUMNS: readonly (keyof FailureFactsRow)[] = [
  'ff_run_failed',
  'ff_feedback',
  'ff_coverage_reason',
  'ff_decision_reason',
  'ff_need_clarify',
  'ff_routing_low',
  'ff_branch',
  'ff_label_disagrees',
  'ff_knowledge_searched',
  'ff_has_references',
  'ff_looked_up',
  'ff_lookup_failed',
  'ff_grade_sufficient',
  'ff_grade_partial',
  'ff_said_no_answer',
];

export function factsFromRow(r: FailureFactsRow): FailureFacts {
  return {
    runFailed: r.ff_run_failed === true,
    feedback: r.ff_feedback === 'useful' || r.ff_feedback === 'not_useful' ? r.ff_feedback : null,
    coverageReason: r.ff_coverage_reason ?? null,
    decisionReason: r.ff_decision_reason ?? null,
    needClarify: r.ff_need_clarify === true,
    routingConfidenceLow: r.ff_routing_low === true,
    branch: r.ff_branch ?? null,
    labelDisagrees: r.ff_label_disagrees === true,
    knowledgeSearched: r.ff_knowledge_searched === true,
    hasReferences: r.ff_has_references === true,
    lookedUp: r.ff_looked_up === true,
    lookupFailed: r.ff_lookup_failed === true,
    gradeSufficient: r.ff_grade_sufficient === true,
    gradePartial: r.ff_grade_partial === true,
    saidNoAnswer: r.ff_said_no_answer === true,
  };
}
