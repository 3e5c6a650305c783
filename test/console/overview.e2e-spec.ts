import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestApp, type TestApp, type TestTenant } from '../support/test-app.js';

interface SessionBody {
  channel?: string;
  query: string;
  answer?: string;
  status: 'SUCCESS' | 'FAILED';
  references?: { filePath?: string; title?: string; score: number }[];
  knowledgeSearched?: boolean;
}

interface Overview {
  window: { from: string; to: string; timeZone: string; channel: string | null };
  coverageByDay: { date: string; evaluated: number; covered: number; rate: number | null }[];
  totals: { sessions: number; coverageRate: number | null; useful: number; notUseful: number; badCases: number };
  decisionReasons: Record<string, number>;
  confidenceHistogram: { from: number; to: number; count: number }[];
  reliability: { method: string; samples: number; points: { x: number; y: number }[] } | null;
  topGaps: { normalizedText: string; sampleQuery: string | null; count: number; sampleSessionIds: string[] }[];
  jobs: { byStatus: Record<string, number>; recentFailures: { id: string; name: string; error: string | null; finishedAt: string | null }[] };
}

interface ErrorBody {
  details?: { fields?: string[] };
}

const DAY_MS = 86_400_000;
const ZONE = 'Asia/Shanghai';
const dayIn = (t: number): string => new Intl.DateTimeFormat('en-CA', { timeZone: ZONE, year: 'numeric', month: '2-digit', day: '2-digit' }).format(t);
const bins = (counts: Record<number, number>) => Array.from({ length: 10 }, (_, i) => ({ from: i * 10, to: i * 10 + 10, count: counts[i] ?? 0 }));

/**
 * Dataset (tenant acme, time zone Asia/Shanghai, sessions created now unless said otherwise), sessions via
 * POST /api/sessions, feedback via POST /api/feedback, route traces and self-evaluations by direct SQL:
 *   w1 web SUCCESS refs (covered)         rule_high_confidence  85   useful
 *   w2 web SUCCESS no refs (uncovered)    no_match              30   not_useful → BAD_CASE
 *   w3 web SUCCESS no refs, same question llm_judge             100
 *   a1 api SUCCESS refs (covered)         rule_high_confidence  5    useful
 *   a2 api FAILED (no coverage decision)  no trace              0
 *   old web SUCCESS refs, 60 days ago (outside the default window) semantic_override 50 useful
 * Tenant other: one uncovered web session with a trace, feedback and a failed job run; no calibration.
 */
describe('GET /admin/console/overview (e2e)', () => {
  let t: TestApp;
  let acme: TestTenant;
  let other: TestTenant;
  const s: Record<string, string> = {};
  const run: Record<string, string> = {};
  const now = Date.now();
  const oldAt = new Date(now - 60 * DAY_MS).toISOString();

  const ingest = async (tenant: TestTenant, body: SessionBody): Promise<string> => {
    const res = await t.request({ method: 'POST', url: '/api/sessions', headers: { 'x-api-key': tenant.clientKey }, payload: body });
    if (res.statusCode !== 201) throw new Error(`ingest failed: ${res.statusCode} ${res.body}`);
    return res.json<{ id: string }>().id;
  };
  const feedback = async (tenant: TestTenant, sessionId: string, value: 'useful' | 'not_useful') => {
    const res = await t.request({ method: 'POST', url: '/api/feedback', headers: { 'x-api-key': tenant.clientKey }, payload: { sessionId, feedback: value } });
    if (res.statusCode >= 300) throw new Error(`feedback failed: ${res.statusCode} ${res.body}`);
  };
  const setTrace = (id: string, reason: string | null, confidence: number) =>
    t.db.pool.query(`UPDATE diagnosis_session SET route_trace = $2, self_evaluation = $3 WHERE id = $1`, [
      id,
      reason === null ? null : { fusion: { decisionReason: reason, finalConfidence: 0.9 }, llmJudge: { triggered: false } },
      { confidence, reasoning: 'test', source: 'rule', evaluatedAt: '2026-01-01T00:00:00Z' },
    ]);
  const insertRun = async (tenant: TestTenant, status: string, createdAt: string, error: string | null = null): Promise<string> => {
    const res = await t.db.pool.query<{ id: string }>(
      `INSERT INTO job_run (tenant_id, name, trigger, status, error, created_at, finished_at)
       VALUES ($1, 'coverage.backfill', 'manual', $2::varchar, $3, $4::timestamptz, CASE WHEN $2::varchar IN ('succeeded', 'failed') THEN $4::timestamptz + interval '1 minute' END)
       RETURNING id`,
      [tenant.id, status, error, createdAt],
    );
    return res.rows[0]!.id;
  };
  const get = (query = '', tenant: TestTenant = acme, key: 'operatorKey' | 'clientKey' = 'operatorKey') =>
    t.request({ method: 'GET', url: `/admin/console/overview${query}`, headers: { 'x-api-key': tenant[key] } });
  const overview = async (query = '', tenant: TestTenant = acme): Promise<Overview> => {
    const res = await get(query, tenant);
    expect([res.statusCode, res.statusCode === 200 ? '' : res.body]).toEqual([200, '']);
    return res.json<Overview>();
  };

  beforeAll(async () => {
    t = await createTestApp();
    acme = await t.createTenant();
    other = await t.createTenant();
    await t.db.pool.query('UPDATE tenant SET time_zone = $2 WHERE id = $1', [acme.id, ZONE]);
    const ref = [{ filePath: 'manuals/servo.md', title: 'Servo', score: 0.82 }];
    const gapQuestion = 'E42 报警怎么处理？';

    s.w1 = await ingest(acme, { channel: 'web', query: '机械臂如何复位？', answer: '按住复位键三秒。', status: 'SUCCESS', references: ref });
    s.w2 = await ingest(acme, { channel: 'web', query: gapQuestion, answer: '抱歉，未找到相关资料', status: 'SUCCESS', knowledgeSearched: true });
    s.w3 = await ingest(acme, { channel: 'web', query: gapQuestion, answer: '抱歉，未找到相关资料', status: 'SUCCESS', knowledgeSearched: true });
    s.a1 = await ingest(acme, { channel: 'api', query: '保修多久？', answer: '一年。', status: 'SUCCESS', references: ref });
    s.a2 = await ingest(acme, { channel: 'api', query: '还是不行', status: 'FAILED' });
    s.old = await ingest(acme, { channel: 'web', query: '一月的问题', answer: '一月的回答', status: 'SUCCESS', references: ref });
    s.x1 = await ingest(other, { channel: 'web', query: gapQuestion, answer: '抱歉，未找到相关资料', status: 'SUCCESS', knowledgeSearched: true });

    await setTrace(s.w1, 'rule_high_confidence', 85);
    await setTrace(s.w2, 'no_match', 30);
    await setTrace(s.w3, 'llm_judge', 100);
    await setTrace(s.a1, 'rule_high_confidence', 5);
    await setTrace(s.a2, null, 0);
    await setTrace(s.old, 'semantic_override', 50);
    await setTrace(s.x1, 'no_match', 95);
    await t.db.pool.query(`UPDATE diagnosis_session SET created_at = $2 WHERE id = $1`, [s.old, oldAt]);
    await t.db.pool.query(`UPDATE coverage_decision SET session_created_at = $2 WHERE session_id = $1`, [s.old, oldAt]);

    await feedback(acme, s.w1, 'useful');
    await feedback(acme, s.w2, 'not_useful');
    await feedback(acme, s.a1, 'useful');
    await feedback(acme, s.old, 'useful');
    await feedback(other, s.x1, 'not_useful');

    // Job runs: created now unless said otherwise; the old failure is listed but not counted in the window.
    await t.db.pool.query(`DELETE FROM job_run WHERE tenant_id = ANY($1::uuid[])`, [[acme.id, other.id]]);
    run.ok1 = await insertRun(acme, 'succeeded', new Date(now - 3000).toISOString());
    run.ok2 = await insertRun(acme, 'succeeded', new Date(now - 2000).toISOString());
    run.queued = await insertRun(acme, 'queued', new Date(now - 1000).toISOString());
    run.failed = await insertRun(acme, 'failed', new Date(now - 500).toISOString(), 'boom: index missing');
    run.oldFailed = await insertRun(acme, 'failed', oldAt, 'old failure');
    run.otherFailed = await insertRun(other, 'failed', new Date(now).toISOString(), 'other tenant failure');

    const cal = await t.request({
      method: 'PUT',
      url: '/admin/intent-config',
      headers: { 'x-api-key': acme.operatorKey },
      payload: { calibration: { method: 'isotonic', x: [0.2, 0.5, 0.8], y: [0.1, 0.4, 0.9], samples: 40 } },
    });
    if (cal.statusCode !== 200) throw new Error(`calibration failed: ${cal.statusCode} ${cal.body}`);
  }, 240_000);
  afterAll(async () => {
    await t?.close();
  });

  it('shows the seeded sessions in every section with exact counts (default window: the last 30 days of the tenant)', async () => {
    const body = await overview();
    const today = dayIn(now);
    expect(body.window).toEqual({ from: dayIn(now - 29 * DAY_MS), to: today, timeZone: ZONE, channel: null });

    expect(body.coverageByDay).toHaveLength(30);
    expect(body.coverageByDay[29]).toEqual({ date: today, evaluated: 4, covered: 2, rate: 0.5 });
    expect(body.coverageByDay.slice(0, 29).every((d) => d.evaluated === 0 && d.covered === 0 && d.rate === null)).toBe(true);

    expect(body.totals).toEqual({ sessions: 5, coverageRate: 0.5, useful: 2, notUseful: 1, badCases: 1 });
    expect(body.decisionReasons).toEqual({ rule_high_confidence: 2, no_match: 1, llm_judge: 1 });
    expect(body.confidenceHistogram).toEqual(bins({ 0: 2, 3: 1, 8: 1, 9: 1 }));
    expect(body.reliability).toEqual({
      method: 'isotonic',
      samples: 40,
      points: [
        { x: 0.2, y: 0.1 },
        { x: 0.5, y: 0.4 },
        { x: 0.8, y: 0.9 },
      ],
    });

    expect(body.topGaps).toHaveLength(1);
    expect(body.topGaps[0]).toMatchObject({ sampleQuery: 'E42 报警怎么处理？', count: 2 });
    expect([...body.topGaps[0]!.sampleSessionIds].sort()).toEqual([s.w2, s.w3].sort());
    // The same items GET /admin/coverage/gaps gives.
    const gaps = await t.request({ method: 'GET', url: '/admin/coverage/gaps?limit=5', headers: { 'x-api-key': acme.operatorKey } });
    expect(body.topGaps).toEqual(gaps.json<{ items: unknown[] }>().items);

    expect(body.jobs.byStatus).toEqual({ queued: 1, running: 0, succeeded: 2, failed: 1 });
    expect(body.jobs.recentFailures).toEqual([
      { id: run.failed, name: 'coverage.backfill', error: 'boom: index missing', finishedAt: expect.any(String) },
      { id: run.oldFailed, name: 'coverage.backfill', error: 'old failure', finishedAt: new Date(Date.parse(oldAt) + 60_000).toISOString() },
    ]);
  });

  it('agrees with the monitoring stats and the coverage report over the same window', async () => {
    const body = await overview();
    const stats = (await t.request({ method: 'GET', url: '/admin/monitoring/stats', headers: { 'x-api-key': acme.operatorKey } })).json<{
      totals: { sessions: number; decisionReasons: Record<string, number>; feedback: { useful: number; notUseful: number } };
    }>();
    expect(body.totals).toMatchObject({ sessions: stats.totals.sessions, useful: stats.totals.feedback.useful, notUseful: stats.totals.feedback.notUseful });
    expect(body.decisionReasons).toEqual(stats.totals.decisionReasons);
    const report = (await t.request({ method: 'GET', url: '/admin/coverage/report', headers: { 'x-api-key': acme.operatorKey } })).json<{
      coverageRate: number;
    }>();
    expect(body.totals.coverageRate).toBe(report.coverageRate);
  });

  it.each([
    [
      'web',
      {
        totals: { sessions: 3, coverageRate: 0.3333, useful: 1, notUseful: 1, badCases: 1 },
        decisionReasons: { rule_high_confidence: 1, no_match: 1, llm_judge: 1 },
        histogram: { 3: 1, 8: 1, 9: 1 },
        today: { evaluated: 3, covered: 1, rate: 0.3333 },
        gaps: 1,
      },
    ],
    [
      'api',
      {
        totals: { sessions: 2, coverageRate: 1, useful: 1, notUseful: 0, badCases: 0 },
        decisionReasons: { rule_high_confidence: 1 },
        histogram: { 0: 2 },
        today: { evaluated: 1, covered: 1, rate: 1 },
        gaps: 0,
      },
    ],
    [
      'sms',
      {
        totals: { sessions: 0, coverageRate: null, useful: 0, notUseful: 0, badCases: 0 },
        decisionReasons: {},
        histogram: {},
        today: { evaluated: 0, covered: 0, rate: null },
        gaps: 0,
      },
    ],
  ])('channel=%s changes the counts of every channel-aware section', async (channel, want) => {
    const body = await overview(`?channel=${channel}`);
    expect(body.window.channel).toBe(channel);
    expect(body.totals).toEqual(want.totals);
    expect(body.decisionReasons).toEqual(want.decisionReasons);
    expect(body.confidenceHistogram).toEqual(bins(want.histogram));
    expect(body.coverageByDay[29]).toEqual({ date: dayIn(now), ...want.today });
    expect(body.topGaps).toHaveLength(want.gaps);
    // Not channel-aware: the calibration and the job runs.
    expect(body.reliability?.samples).toBe(40);
    expect(body.jobs.byStatus).toEqual({ queued: 1, running: 0, succeeded: 2, failed: 1 });
  });

  it('reads an explicit window in the tenant time zone', async () => {
    const oldDay = dayIn(Date.parse(oldAt));
    const body = await overview(`?from=${oldDay}&to=${oldDay}`);
    expect(body.window).toEqual({ from: oldDay, to: oldDay, timeZone: ZONE, channel: null });
    expect(body.coverageByDay).toEqual([{ date: oldDay, evaluated: 1, covered: 1, rate: 1 }]);
    expect(body.totals).toEqual({ sessions: 1, coverageRate: 1, useful: 1, notUseful: 0, badCases: 0 });
    expect(body.decisionReasons).toEqual({ semantic_override: 1 });
    expect(body.confidenceHistogram).toEqual(bins({ 5: 1 }));
    expect(body.topGaps).toEqual([]);
    expect(body.jobs.byStatus).toEqual({ queued: 0, running: 0, succeeded: 0, failed: 1 });
    const web = await overview(`?from=${oldDay}&to=${oldDay}&channel=web`);
    expect(web.totals).toEqual(body.totals);
    expect(web.decisionReasons).toEqual(body.decisionReasons);
  });

  it("never counts another tenant's sessions, gaps, calibration or job runs", async () => {
    const body = await overview('', other);
    expect(body.window.timeZone).toBe('UTC');
    expect(body.totals).toEqual({ sessions: 1, coverageRate: 0, useful: 0, notUseful: 1, badCases: 1 });
    expect(body.decisionReasons).toEqual({ no_match: 1 });
    expect(body.confidenceHistogram).toEqual(bins({ 9: 1 }));
    expect(body.reliability).toBeNull();
    expect(body.topGaps).toHaveLength(1);
    expect(body.topGaps[0]!.sampleSessionIds).toEqual([s.x1]);
    expect(body.jobs.byStatus).toEqual({ queued: 0, running: 0, succeeded: 0, failed: 1 });
    expect(body.jobs.recentFailures.map((r) => r.id)).toEqual([run.otherFailed]);
    // and acme's figures hold nothing of the other tenant
    const mine = await overview('?channel=web');
    expect(mine.topGaps[0]!.sampleSessionIds).not.toContain(s.x1);
    expect(mine.jobs.recentFailures.map((r) => r.id)).not.toContain(run.otherFailed);
  });

  it.each([
    ['?from=2026-02-30', ['from']],
    ['?from=yesterday', ['from']],
    ['?to=2026-13-01', ['to']],
    ['?to=2026-03-01T00:00:00Z', ['to']],
    ['?from=2026-03-02&to=2026-03-01', ['from', 'to']],
    ['?from=2025-01-01&to=2026-03-01', ['from', 'to']],
    ['?channel=we%20b', ['channel']],
    ['?channel=' + 'x'.repeat(33), ['channel']],
    ['?channel=', ['channel']],
  ])('%s → 400 naming %j', async (query, fields) => {
    const res = await get(query);
    expect([res.statusCode, res.body.slice(0, 300)]).toEqual([400, expect.any(String)]);
    expect(res.json<ErrorBody>().details?.fields).toEqual(fields);
  });

  it('needs an operator key: a client key is 403, no key 401', async () => {
    expect((await get('', acme, 'clientKey')).statusCode).toBe(403);
    expect((await t.request({ method: 'GET', url: '/admin/console/overview' })).statusCode).toBe(401);
  });

  it('is in the OpenAPI document with typed nested parts', async () => {
    const res = await t.request({ method: 'GET', url: '/docs-json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json<{ paths: Record<string, unknown>; components: { schemas: Record<string, { properties: Record<string, unknown> }> } }>();
    expect(doc.paths['/admin/console/overview']).toBeDefined();
    expect(Object.keys(doc.components.schemas.ConsoleOverviewDto!.properties).sort()).toEqual(
      ['coverageByDay', 'confidenceHistogram', 'decisionReasons', 'jobs', 'reliability', 'topGaps', 'totals', 'window'].sort(),
    );
  });
});
