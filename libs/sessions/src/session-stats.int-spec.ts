import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { asTenantId, type TenantId } from '@arbiter/common';
import { newMediumTest, type MediumTest, type TestDatabase } from '@arbiter/testing';
import { SessionStatsRepository, type SessionDayWindow } from './session-stats.repository.js';

const ZONE = 'Asia/Shanghai';
/** 2026-03-01..2026-03-02 in Shanghai = [2026-02-28T16:00Z, 2026-03-02T16:00Z). */
const WINDOW: SessionDayWindow = { from: '2026-03-01', to: '2026-03-02', timeZone: ZONE };

interface Row {
  channel: string;
  at: string;
  status: string;
  feedback: 'useful' | 'not_useful' | null;
  reason: string | null | undefined; // undefined: no route trace; null: a trace without fusion
  confidence: unknown; // undefined: no self-evaluation
}

const fusion = (reason: string | null | undefined): string | null =>
  reason === undefined ? null : JSON.stringify(reason === null ? { ruleMatch: null } : { fusion: { decisionReason: reason } });

/** In the window of tenant A: a1..a9; o1, o2 just outside its edges. */
const A_ROWS: Row[] = [
  { channel: 'web', at: '2026-02-28T16:00:00Z', status: 'SUCCESS', feedback: 'useful', reason: 'rule_high_confidence', confidence: 0 }, // a1, first instant
  { channel: 'web', at: '2026-03-01T10:00:00Z', status: 'BAD_CASE', feedback: 'not_useful', reason: 'no_match', confidence: 100 }, // a2
  { channel: 'api', at: '2026-03-02T15:59:59.999Z', status: 'SUCCESS', feedback: null, reason: 'llm_judge', confidence: 55.5 }, // a3, last instant
  { channel: 'web', at: '2026-03-01T11:00:00Z', status: 'RUNNING', feedback: null, reason: undefined, confidence: 'x' }, // a4
  { channel: 'web', at: '2026-03-01T12:00:00Z', status: 'SUCCESS', feedback: 'useful', reason: 'something_new', confidence: 9.99 }, // a5
  { channel: 'api', at: '2026-03-01T13:00:00Z', status: 'SUCCESS', feedback: null, reason: 'rule_high_confidence', confidence: 10 }, // a6
  { channel: 'api', at: '2026-03-01T14:00:00Z', status: 'FAILED', feedback: null, reason: null, confidence: -5 }, // a7
  { channel: 'web', at: '2026-03-01T15:00:00Z', status: 'SUCCESS', feedback: null, reason: undefined, confidence: 150 }, // a8
  { channel: 'web', at: '2026-03-01T16:00:00Z', status: 'SUCCESS', feedback: null, reason: undefined, confidence: undefined }, // a9
  { channel: 'web', at: '2026-02-28T15:59:59.999Z', status: 'SUCCESS', feedback: 'useful', reason: 'no_match', confidence: 50 }, // o1
  { channel: 'api', at: '2026-03-02T16:00:00Z', status: 'BAD_CASE', feedback: 'not_useful', reason: 'no_match', confidence: 50 }, // o2
];
const B_ROWS: Row[] = [
  { channel: 'web', at: '2026-03-01T10:00:00Z', status: 'BAD_CASE', feedback: 'not_useful', reason: 'no_match', confidence: 95 },
  { channel: 'api', at: '2026-03-01T10:00:00Z', status: 'SUCCESS', feedback: 'useful', reason: 'rule_high_confidence', confidence: 5 },
];

describe('SessionStatsRepository', () => {
  let medium: MediumTest;
  let db: TestDatabase;
  let repo: SessionStatsRepository;
  let a: TenantId;
  let b: TenantId;

  async function seed(tenant: TenantId, rows: Row[]): Promise<void> {
    const conv = (await db.pool.query<{ id: string }>(`INSERT INTO conversation (tenant_id) VALUES ($1) RETURNING id`, [tenant])).rows[0].id;
    for (const r of rows) {
      await db.pool.query(
        `INSERT INTO diagnosis_session (tenant_id, conversation_id, channel, query, status, feedback, route_trace, self_evaluation, created_at)
         VALUES ($1, $2, $3, 'q', $4, $5, $6::jsonb, $7::jsonb, $8::timestamptz)`,
        [
          tenant,
          conv,
          r.channel,
          r.status,
          r.feedback,
          fusion(r.reason),
          r.confidence === undefined ? null : JSON.stringify({ source: 'rule', confidence: r.confidence }),
          r.at,
        ],
      );
    }
  }

  beforeAll(async () => {
    medium = await newMediumTest({ max: 2 });
    db = medium.db;
    repo = await medium.service(SessionStatsRepository);
    const t = await db.pool.query<{ id: string }>(`INSERT INTO tenant (name, time_zone) VALUES ('console-a', $1), ('console-b', $1) RETURNING id`, [ZONE]);
    a = asTenantId(t.rows[0].id);
    b = asTenantId(t.rows[1].id);
    await seed(a, A_ROWS);
    await seed(b, B_ROWS);
  });
  afterAll(() => medium?.close());

  describe('windowTotals', () => {
    it.each([
      [null, { sessions: 9, badCases: 1, useful: 2, notUseful: 1, decisionReasons: { rule_high_confidence: 2, no_match: 1, llm_judge: 1, something_new: 1 } }],
      ['web', { sessions: 6, badCases: 1, useful: 2, notUseful: 1, decisionReasons: { rule_high_confidence: 1, no_match: 1, something_new: 1 } }],
      ['api', { sessions: 3, badCases: 0, useful: 0, notUseful: 0, decisionReasons: { llm_judge: 1, rule_high_confidence: 1 } }],
      ['sms', { sessions: 0, badCases: 0, useful: 0, notUseful: 0, decisionReasons: {} }],
    ])('channel %s: counts the window of the tenant only (day edges in its time zone)', async (channel, expected) => {
      expect(await repo.windowTotals(a, WINDOW, channel)).toEqual(expected);
    });

    it("never counts another tenant's sessions", async () => {
      expect(await repo.windowTotals(b, WINDOW, null)).toEqual({
        sessions: 2,
        badCases: 1,
        useful: 1,
        notUseful: 1,
        decisionReasons: { no_match: 1, rule_high_confidence: 1 },
      });
    });

    it('reads the days in the given time zone', async () => {
      // In UTC, 2026-03-01..2026-03-02 drops a1 (2026-02-28T16:00Z) and takes o2 (2026-03-02T16:00Z, a bad case).
      const utc = await repo.windowTotals(a, { ...WINDOW, timeZone: 'UTC' }, null);
      expect(utc.sessions).toBe(9);
      expect(utc.badCases).toBe(2);
    });
  });

  describe('confidenceBins', () => {
    it.each([
      [
        null,
        [
          { bin: 1, count: 2 },
          { bin: 2, count: 1 },
          { bin: 6, count: 1 },
          { bin: 10, count: 1 },
        ],
      ],
      [
        'web',
        [
          { bin: 1, count: 2 },
          { bin: 10, count: 1 },
        ],
      ],
      [
        'api',
        [
          { bin: 2, count: 1 },
          { bin: 6, count: 1 },
        ],
      ],
      ['sms', []],
    ])('channel %s: non-empty bins of numeric confidences within 0..100, 100 in the last bin', async (channel, expected) => {
      expect(await repo.confidenceBins(a, WINDOW, channel)).toEqual(expected);
    });

    it("never counts another tenant's sessions", async () => {
      expect(await repo.confidenceBins(b, WINDOW, null)).toEqual([
        { bin: 1, count: 1 },
        { bin: 10, count: 1 },
      ]);
    });
  });
});
