import { describe, expect, it } from '@jest/globals';
import { readFollowUp, readRouteTrace } from './route-trace';

describe('readRouteTrace', () => {
  it('reads the four steps of a stored trace in decision order', () => {
    const steps = readRouteTrace({
      ruleMatch: { ruleId: 'r1', intent: 'reset_arm', matchType: 'keyword', matchedText: '重置', matchedBy: '重置', score: 1, durationMs: 0.2 },
      semanticMatch: {
        topCandidates: [{ intent: 'reset_arm', score: 0.81, source: 'examples', nearestExample: '怎么重置' }],
        durationMs: 3,
        aggregation: 'mean',
      },
      llmJudge: { triggered: true, triggerReason: 'gray_zone', skipped: 'disabled' },
      fusion: {
        weights: { rule: 0.5, semantic: 0.3, llm: 0.2 },
        effectiveWeights: { rule: 0.625, semantic: 0.375, llm: 0 },
        finalConfidence: 0.93,
        decisionReason: 'rule_high_confidence',
      },
    });
    expect(steps).toEqual([
      { kind: 'rule', matched: true, intent: 'reset_arm', matchType: 'keyword', matchedText: '重置', durationMs: 0.2 },
      { kind: 'semantic', skipped: null, aggregation: 'mean', candidates: [{ intent: 'reset_arm', score: 0.81, nearestExample: '怎么重置' }], durationMs: 3 },
      { kind: 'judge', triggered: true, triggerReasons: ['gray_zone'], intent: null, score: null, skipped: 'disabled', error: null, durationMs: null },
      {
        kind: 'fusion',
        decisionReason: 'rule_high_confidence',
        finalConfidence: 0.93,
        rawConfidence: null,
        weights: { rule: 0.5, semantic: 0.3, llm: 0.2 },
        effectiveWeights: { rule: 0.625, semantic: 0.375, llm: 0 },
      },
    ]);
  });

  it('survives a partial or foreign trace without inventing steps', () => {
    expect(readRouteTrace(null)).toEqual([]);
    expect(readRouteTrace({ ruleMatch: null, semanticMatch: { topCandidates: 'x', skipped: 'disabled' } })).toEqual([
      { kind: 'rule', matched: false, durationMs: null },
      { kind: 'semantic', skipped: 'disabled', aggregation: null, candidates: [], durationMs: null },
      { kind: 'judge', triggered: false, triggerReasons: [], intent: null, score: null, skipped: null, error: null, durationMs: null },
    ]);
  });
});

describe('readFollowUp', () => {
  it.each([
    [
      { chat: { followUp: { message: '还是不行', query: 'E201 怎么处理？ 还是不行', by: 'still_failing' } } },
      { query: 'E201 怎么处理？ 还是不行', by: 'still_failing' },
    ],
    [{ chat: { followUp: { message: 'and E202?', query: 'How do I fix E202?', by: 'llm' } } }, { query: 'How do I fix E202?', by: 'llm' }],
    [{ chat: { followUp: { message: 'E201 报警', query: 'E201 报警', by: 'none' } } }, null],
    [{ chat: { followUp: { message: 'x', query: 'x', by: 'llm' } } }, null],
    [{ chat: { followUp: { query: 42, by: 'short' } } }, null],
    [{ chat: {} }, null],
    [null, null],
  ])('%j → %j', (trace, expected) => {
    expect(readFollowUp(trace)).toEqual(expected);
  });
});
