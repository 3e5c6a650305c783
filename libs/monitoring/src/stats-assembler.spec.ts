import { describe, expect, it } from '@jest/globals';
import { assembleStats, camelKeys, emptyBucket, type SessionStatsInput } from './stats-assembler.js';

const row = (r: Partial<SessionStatsInput>): SessionStatsInput => ({
  day: null,
  n: 0,
  pending: 0,
  running: 0,
  success: 0,
  failed: 0,
  badCase: 0,
  reasons: [0, 0, 0, 0, 0, 0, 0],
  routed: 0,
  clarify: 0,
  judgeCalls: 0,
  judgeTokens: null,
  llmCount: 0,
  llmMean: null,
  ruleCount: 0,
  ruleMean: null,
  useful: 0,
  notUseful: 0,
  latencyCount: 0,
  latency: null,
  ...r,
});

describe('assembleStats', () => {
  it('empty window: zeros and null rates', () => {
    expect(assembleStats([], [])).toEqual({ totals: emptyBucket(), byDay: [] });
    expect(assembleStats([row({})], []).totals).toEqual(emptyBucket());
  });

  it("maps totals and per-day rows, days sorted, only observed reasons (today's and the legacy semantic_fallback) and sources", () => {
    const out = assembleStats(
      [
        row({
          n: 10,
          success: 7,
          failed: 2,
          badCase: 1,
          reasons: [5, 0, 0, 3, 2, 1, 1],
          routed: 8,
          clarify: 2,
          judgeCalls: 4,
          judgeTokens: 400,
          ruleCount: 10,
          ruleMean: 62.5,
          useful: 3,
          notUseful: 1,
          latencyCount: 9,
          latency: [120, 900],
        }),
        row({ day: '2026-03-02', n: 4, success: 4 }),
        row({ day: '2026-03-01', n: 6, success: 3, routed: 8 }),
      ],
      [
        { day: null, n: 8, covered: 6 },
        { day: '2026-03-01', n: 2, covered: 1 },
      ],
    );
    expect(out.totals).toEqual({
      sessions: 10,
      byStatus: { PENDING: 0, RUNNING: 0, SUCCESS: 7, FAILED: 2, BAD_CASE: 1 },
      decisionReasons: { rule_high_confidence: 5, llm_judge: 3, fusion_fallback: 2, semantic_fallback: 1, other: 1 },
      routedSessions: 8,
      clarifyRate: 0.25,
      judge: { calls: 4, callRate: 0.5, tokens: 400 },
      selfEvaluation: { rule: { count: 10, meanConfidence: 62.5 } },
      coverage: { evaluated: 8, covered: 6, rate: 0.75 },
      feedback: { useful: 3, notUseful: 1 },
      latencyMs: { count: 9, p50: 120, p95: 900 },
    });
    expect(out.byDay.map((d) => d.date)).toEqual(['2026-03-01', '2026-03-02']);
    expect(out.byDay[0]).toMatchObject({ sessions: 6, byStatus: { SUCCESS: 3 }, coverage: { evaluated: 2, covered: 1, rate: 0.5 } });
    expect(out.byDay[1]).toMatchObject({ sessions: 4, clarifyRate: null, judge: { callRate: null }, coverage: { evaluated: 0, rate: null } });
  });

  it('accepts numeric strings (pg bigint/numeric)', () => {
    const out = assembleStats(
      [row({ n: '3', latency: ['1.5', '2'], judgeTokens: '12', llmCount: '1', llmMean: '40.5' })],
      [{ day: null, n: '2', covered: '1' }],
    );
    expect(out.totals.sessions).toBe(3);
    expect(out.totals.latencyMs).toEqual({ count: 0, p50: 1.5, p95: 2 });
    expect(out.totals.judge.tokens).toBe(12);
    expect(out.totals.selfEvaluation).toEqual({ llm: { count: 1, meanConfidence: 40.5 } });
    expect(out.totals.coverage.rate).toBe(0.5);
  });
});

describe('camelKeys', () => {
  it('camel-cases top-level keys only', () => {
    expect(camelKeys({ l1_top_similarity: 0.8, retrieved_domains: ['a'], confidence: { some_key: 1 } })).toEqual({
      l1TopSimilarity: 0.8,
      retrievedDomains: ['a'],
      confidence: { some_key: 1 },
    });
    expect(camelKeys(null)).toBeNull();
  });
});
