import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { asTenantId, type TenantId } from '@arbiter/common';
import { newMediumTest, type MediumTest, type TestDatabase } from '@arbiter/testing';
import { directStats } from '../../../test/monitoring/direct-stats.js';
import { assembleStats } from './stats-assembler.js';
import { StatsRollupRepository } from './stats-rollup.repository.js';

const ZONE = 'Asia/Shanghai';
const TRACES = [
  { fusion: { decisionReason: 'rule_high_confidence' }, llmJudge: { triggered: false } },
  { fusion: { decisionReason: 'semantic_override' }, llmJudge: { triggered: false } },
  { fusion: { decisionReason: 'llm_judge' }, llmJudge: { triggered: true, tokens: 356 } },
  { fusion: { decisionReason: 'semantic_fallback', needClarify: true }, llmJudge: { triggered: true, error: 'timeout' } },
  { fusion: { decisionReason: 'something_new' }, needClarify: true, llmJudge: { triggered: true, skipped: 'disabled' } },
  null,
];
const STATUSES = ['SUCCESS', 'SUCCESS', 'FAILED', 'BAD_CASE', 'RUNNING', 'PENDING'];

/**
 * The rollup read (migration 0090, docs/hot-paths.md "Stats") must give exactly what the direct aggregate
 * over the sessions gives: for aligned and unaligned windows, totals and by day, with deltas pending,
 * after a fold and after a rebuild, and never another tenant's rows.
 */
describe('stats from rollups = direct aggregate', () => {
  let medium: MediumTest;
  let db: TestDatabase;
  let rollup: StatsRollupRepository;
  let a: TenantId;
  let b: TenantId;
  let conv: Record<string, string>;
  const base = Date.parse('2026-11-02T15:53:00Z');

  async function seed(tenant: TenantId, count: number, offset: number): Promise<string[]> {
    const ids: string[] = [];
    // Sessions from 2026-11-02 15:53Z on, 37 minutes 11 s apart: several per 15-minute bucket boundary crossing, three local days.
    const rows = await db.pool.query<{ id: string }>(
      `INSERT INTO diagnosis_session (tenant_id, conversation_id, query, answer, status, feedback, route_trace, self_evaluation, latency_ms, created_at)
       SELECT $1, $2, 'q' || i, 'a', ($3::text[])[1 + (i + $5) % 6],
              CASE WHEN (i + $5) % 6 = 3 THEN 'not_useful' WHEN i % 4 = 1 THEN 'useful' END,
              ($4::jsonb[])[1 + (i * 7 + $5) % 6],
              CASE WHEN i % 5 = 4 THEN NULL
                   ELSE jsonb_build_object('source', CASE WHEN i % 3 = 0 THEN 'llm' ELSE 'rule' END, 'confidence', CASE WHEN i % 11 = 0 THEN to_jsonb('x'::text) ELSE to_jsonb(40 + (i * 13) % 60) END) END,
              CASE WHEN i % 7 = 6 THEN NULL ELSE 100 + (i * 37) % 400 END,
              $6::timestamptz + (i * interval '37 minutes 11 seconds')
       FROM generate_series(0, $7::int - 1) AS i RETURNING id`,
      [tenant, conv[tenant], STATUSES, TRACES.map((t) => (t === null ? null : JSON.stringify(t))), offset, new Date(base).toISOString(), count],
    );
    ids.push(...rows.rows.map((r) => r.id));
    await db.pool.query(
      `INSERT INTO coverage_decision (session_id, evaluator_version, tenant_id, channel, verdict, reason_code, reference_count, top_score, gap_key, session_created_at)
       SELECT s.id, v, s.tenant_id, 'web', CASE WHEN (row_number() OVER ()) % 3 = 0 THEN 'uncovered' ELSE 'covered' END,
              'covered_has_references', 1, 0.5, s.query, s.created_at
       FROM diagnosis_session s CROSS JOIN (VALUES ('v1'), ('v2')) AS versions(v)
       WHERE s.tenant_id = $1 AND s.status IN ('SUCCESS', 'BAD_CASE')`,
      [tenant],
    );
    return ids;
  }

  const windows = [
    { name: 'three local days (aligned)', fromTs: '2026-11-02T16:00:00.000000Z', toTs: '2026-11-05T16:00:00.000000Z' },
    { name: 'unaligned instants', fromTs: '2026-11-02T17:07:13.123456Z', toTs: '2026-11-04T09:41:59.999999Z' },
    { name: 'inside one bucket', fromTs: '2026-11-03T10:01:00.000000Z', toTs: '2026-11-03T10:14:00.000000Z' },
    { name: 'everything', fromTs: '2026-10-01T00:00:00.000000Z', toTs: '2026-12-01T00:00:00.000000Z' },
  ];

  async function expectEqual(tenant: TenantId, label: string): Promise<void> {
    for (const w of windows) {
      for (const byDay of [false, true]) {
        const window = { timeZone: ZONE, fromTs: w.fromTs, toTs: w.toTs };
        const want = await directStats(db.pool, tenant, window, 'v1', byDay);
        const got = await rollup.stats(tenant, window, 'v1', byDay);
        const context = `${label}, ${w.name}, byDay=${byDay}`;
        const wanted = assembleStats(want.sessions, want.coverage);
        expect({ context, stats: assembleStats(got.sessions, got.coverage) }).toEqual({ context, stats: wanted });
        if (w.name !== 'inside one bucket') {
          // Not vacuous: the windows hold sessions, latencies, coverage and (by day) several days.
          expect(wanted.totals.sessions).toBeGreaterThan(20);
          expect(wanted.totals.latencyMs.p95).not.toBeNull();
          expect(wanted.totals.coverage.evaluated).toBeGreaterThan(5);
          if (byDay) expect(wanted.byDay.length).toBeGreaterThan(1);
        }
      }
    }
  }

  beforeAll(async () => {
    medium = await newMediumTest({ max: 4 });
    db = medium.db;
    rollup = await medium.service(StatsRollupRepository);
    const t = await db.pool.query<{ id: string }>(`INSERT INTO tenant (name, time_zone) VALUES ('stats-a', $1), ('stats-b', $1) RETURNING id`, [ZONE]);
    a = asTenantId(t.rows[0].id);
    b = asTenantId(t.rows[1].id);
    conv = {};
    for (const tenant of [a, b]) {
      conv[tenant] = (await db.pool.query<{ id: string }>(`INSERT INTO conversation (tenant_id) VALUES ($1) RETURNING id`, [tenant])).rows[0].id;
    }
  });
  afterAll(() => medium?.close());

  it('equals the direct aggregate with only deltas, after a fold, after changes on top of the rollup, and after a rebuild', async () => {
    const ids = await seed(a, 120, 0);
    await seed(b, 40, 2);
    await expectEqual(a, 'deltas only');

    expect((await rollup.fold(a)).sessionBuckets).toBeGreaterThan(0);
    expect(Number((await db.pool.query(`SELECT count(*) AS n FROM session_stats_delta WHERE tenant_id = $1`, [a])).rows[0].n)).toBe(0);
    await expectEqual(a, 'folded');

    // Changes on top of the folded rollup: feedback, re-evaluation, a latency fixed, a session deleted
    // (its coverage decisions go with it), a decision re-judged — each removes a contribution the rollup holds.
    await db.pool.query(`UPDATE diagnosis_session SET status = 'BAD_CASE', feedback = 'not_useful' WHERE id = ANY($1)`, [ids.slice(0, 10)]);
    await db.pool.query(`UPDATE diagnosis_session SET self_evaluation = '{"source":"llm","confidence":12}' WHERE id = ANY($1)`, [ids.slice(5, 15)]);
    await db.pool.query(`UPDATE diagnosis_session SET latency_ms = 7 WHERE id = ANY($1)`, [ids.slice(20, 30)]);
    await db.pool.query(`UPDATE coverage_decision SET verdict = 'uncovered' WHERE session_id = ANY($1)`, [ids.slice(30, 60)]);
    await db.pool.query(`DELETE FROM diagnosis_session WHERE id = ANY($1)`, [ids.slice(60, 66)]);
    await expectEqual(a, 'changes pending on a folded rollup');
    await rollup.fold(a);
    await expectEqual(a, 'changes folded');

    const bRowsBefore = await db.pool.query(`SELECT * FROM session_stats_rollup WHERE tenant_id = $1 ORDER BY bucket`, [b]);
    // The backfill: wipe the rollup as if it had been lost, then rebuild.
    await db.pool.query(`DELETE FROM session_stats_rollup WHERE tenant_id = $1`, [a]);
    await db.pool.query(`DELETE FROM coverage_stats_rollup WHERE tenant_id = $1`, [a]);
    const rebuilt = await rollup.rebuild(a);
    expect(rebuilt.sessionBuckets).toBeGreaterThan(0);
    await expectEqual(a, 'rebuilt');
    // Tenant b: untouched by a's fold and rebuild, and its own figures right.
    expect((await db.pool.query(`SELECT * FROM session_stats_rollup WHERE tenant_id = $1 ORDER BY bucket`, [b])).rows).toEqual(bRowsBefore.rows);
    await expectEqual(b, 'other tenant');
    await rollup.fold(b);
    await expectEqual(b, 'other tenant folded');
  });

  it("never counts another tenant's sessions", async () => {
    const empty = await db.pool.query<{ id: string }>(`INSERT INTO tenant (name, time_zone) VALUES ('stats-empty', $1) RETURNING id`, [ZONE]);
    const c = asTenantId(empty.rows[0].id);
    await rollup.rebuild(c);
    const got = await rollup.stats(c, { timeZone: ZONE, fromTs: windows[3].fromTs, toTs: windows[3].toTs }, 'v1', true);
    const stats = assembleStats(got.sessions, got.coverage);
    expect(stats.totals.sessions).toBe(0);
    expect(stats.totals.coverage.evaluated).toBe(0);
    expect(stats.byDay).toEqual([]);
  });
});
