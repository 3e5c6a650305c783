/**
 * The route trace as stored (libs/intent RouteTrace), read defensively: traces are JSON from any past version,
 * so every field is checked, and a step the trace lacks is reported as missing rather than guessed.
 */
export type TraceStep =
  | { kind: 'rule'; matched: false; durationMs: number | null }
  | { kind: 'rule'; matched: true; intent: string; matchType: string; matchedText: string; durationMs: number | null }
  | {
      kind: 'semantic';
      skipped: string | null;
      aggregation: string | null;
      candidates: { intent: string; score: number; nearestExample: string | null }[];
      durationMs: number | null;
    }
  | {
      kind: 'judge';
      triggered: boolean;
      triggerReasons: string[];
      intent: string | null;
      score: number | null;
      skipped: string | null;
      error: string | null;
      durationMs: number | null;
    }
  | {
      kind: 'fusion';
      decisionReason: string;
      finalConfidence: number | null;
      rawConfidence: number | null;
      weights: Record<string, number>;
      effectiveWeights: Record<string, number>;
    };

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);
const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const weights = (value: unknown): Record<string, number> =>
  isObject(value) ? Object.fromEntries(Object.entries(value).filter((entry): entry is [string, number] => typeof entry[1] === 'number')) : {};

/** The four steps of a route decision in the order the router takes them (docs/spec/intent-routing.md); [] for no trace. */
export function readRouteTrace(trace: unknown): TraceStep[] {
  if (!isObject(trace)) return [];
  const steps: TraceStep[] = [];
  const rule = trace.ruleMatch;
  steps.push(
    isObject(rule)
      ? {
          kind: 'rule',
          matched: true,
          intent: str(rule.intent) ?? '?',
          matchType: str(rule.matchType) ?? '?',
          matchedText: str(rule.matchedText) ?? '',
          durationMs: num(rule.durationMs),
        }
      : { kind: 'rule', matched: false, durationMs: null },
  );
  const semantic = isObject(trace.semanticMatch) ? trace.semanticMatch : {};
  const candidates = Array.isArray(semantic.topCandidates) ? semantic.topCandidates.filter(isObject) : [];
  steps.push({
    kind: 'semantic',
    skipped: str(semantic.skipped),
    aggregation: str(semantic.aggregation),
    candidates: candidates.map((candidate) => ({
      intent: str(candidate.intent) ?? '?',
      score: num(candidate.score) ?? 0,
      nearestExample: str(candidate.nearestExample),
    })),
    durationMs: num(semantic.durationMs),
  });
  const judge = isObject(trace.llmJudge) ? trace.llmJudge : {};
  const triggerReasons = Array.isArray(judge.triggerReasons) ? judge.triggerReasons.filter((r): r is string => typeof r === 'string') : [];
  const triggerReason = str(judge.triggerReason);
  steps.push({
    kind: 'judge',
    triggered: judge.triggered === true,
    triggerReasons: triggerReasons.length > 0 ? triggerReasons : triggerReason ? [triggerReason] : [],
    intent: str(judge.intent),
    score: num(judge.score),
    skipped: str(judge.skipped),
    error: str(judge.error),
    durationMs: num(judge.durationMs),
  });
  if (isObject(trace.fusion)) {
    steps.push({
      kind: 'fusion',
      decisionReason: str(trace.fusion.decisionReason) ?? '?',
      finalConfidence: num(trace.fusion.finalConfidence),
      rawConfidence: num(trace.fusion.rawConfidence),
      weights: weights(trace.fusion.weights),
      effectiveWeights: weights(trace.fusion.effectiveWeights),
    });
  }
  return steps;
}

/**
 * The standalone question a chat follow-up was resolved to (`route_trace.chat.followUp`, docs/chat-clients.md
 * "Conversations that remember") and how (`llm`, a rule name); null when the turn was not resolved (a first message,
 * one that stood alone, or a trace from before).
 */
export function readFollowUp(trace: unknown): { query: string; by: string } | null {
  if (!isObject(trace) || !isObject(trace.chat) || !isObject(trace.chat.followUp)) return null;
  const followUp = trace.chat.followUp;
  const query = str(followUp.query);
  const by = str(followUp.by);
  if (query === null || by === null || by === 'none' || query === str(followUp.message)) return null;
  return { query, by };
}
