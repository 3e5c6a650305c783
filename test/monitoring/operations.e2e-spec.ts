import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { asTenantId } from '@arbiter/common';
import { JOB_CATALOG, JobsService } from '@arbiter/jobs';
import { createTestApp, type TestApp, type TestTenant } from '../support/test-app.js';
import { MetricsListener } from '../../apps/api/src/metrics-listener.js';
import { parsePrometheusText } from './prometheus-text.js';

const JOBS_CLEANUP_JOB = 'jobs.cleanup';
const JOBS_CLEANUP_CRON = JOB_CATALOG[JOBS_CLEANUP_JOB].cron;

const METRICS_TOKEN = 'metrics-secret-0123';

describe('operations: /metrics and the jobs.cleanup job (e2e)', () => {
  let t: TestApp;
  let guarded: TestApp;
  let ownPort: TestApp;
  let acme: TestTenant;
  let other: TestTenant;

  beforeAll(async () => {
    t = await createTestApp({ JOBS_RUN_RETENTION_DAYS: '10' });
    guarded = await createTestApp({ METRICS_TOKEN }, t.db);
    ownPort = await createTestApp({ METRICS_TOKEN, METRICS_PORT: '0', HOST: '127.0.0.1' }, t.db);
    acme = await t.createTenant();
    other = await t.createTenant();
  }, 240_000);
  afterAll(async () => {
    await ownPort.close();
    await guarded.close();
    await t.close();
  });

  describe('GET /metrics', () => {
    it('serves valid Prometheus text with Node process metrics and the HTTP histogram', async () => {
      // Some traffic first, so the request histogram has series.
      await t.request({ method: 'GET', url: '/health' });
      await t.request({ method: 'GET', url: '/admin/monitoring/stats', headers: { 'x-api-key': acme.operatorKey } });
      const res = await t.request({ method: 'GET', url: '/metrics' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
      const families = parsePrometheusText(res.body);
      const names = [...families.keys()];
      // Node process metrics (prom-client defaults, prefixed).
      for (const suffix of [
        'process_cpu_user_seconds_total',
        'process_resident_memory_bytes',
        'process_start_time_seconds',
        'nodejs_heap_size_used_bytes',
        'nodejs_eventloop_lag_seconds',
      ]) {
        expect(names.some((n) => n.endsWith(suffix))).toBe(true);
      }
      const http = families.get('arbiter_http_request_duration_seconds');
      expect(http?.type).toBe('histogram');
      const routes = new Set(http!.samples.map((s) => s.labels.route));
      expect(routes).toContain('/admin/monitoring/stats');
      // Bounded labels: route patterns, never raw URLs or ids.
      for (const route of routes) expect(route).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
    });

    it('the parser is strict (a malformed exposition is refused)', () => {
      expect(() => parsePrometheusText('# TYPE x counter\nx 1\n')).not.toThrow();
      expect(() => parsePrometheusText('x 1\n')).toThrow('without a preceding TYPE');
      expect(() => parsePrometheusText('# TYPE x counter\nx{a="1} 1\n')).toThrow('malformed sample');
      expect(() => parsePrometheusText('# TYPE x counter\nx one\n')).toThrow('malformed sample');
      expect(() => parsePrometheusText('# TYPE x counter\nx 1')).toThrow('newline');
      expect(() => parsePrometheusText('# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n')).toThrow('not cumulative');
      expect(() => parsePrometheusText('# TYPE h histogram\nh_bucket{le="1"} 1\nh_sum 1\nh_count 1\n')).toThrow('+Inf');
    });

    it('with METRICS_TOKEN set: 401 without or with a wrong bearer token, 200 with it', async () => {
      expect((await guarded.request({ method: 'GET', url: '/metrics' })).statusCode).toBe(401);
      expect((await guarded.request({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer wrong-token-000' } })).statusCode).toBe(401);
      expect((await guarded.request({ method: 'GET', url: '/metrics', headers: { 'x-api-key': acme.operatorKey } })).statusCode).toBe(401);
      const ok = await guarded.request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      expect(ok.statusCode).toBe(200);
      expect(parsePrometheusText(ok.body).size).toBeGreaterThan(10);
    });
  });

  it('with METRICS_PORT: /metrics is served on its own port only, the token still required', async () => {
    const port = ownPort.app.get(MetricsListener).port;
    expect(port).toBeGreaterThan(0);
    expect((await ownPort.request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).statusCode).toBe(404);
    const scrape = (path: string, headers: Record<string, string> = {}) => fetch(`http://127.0.0.1:${port}${path}`, { headers });
    const ok = await scrape('/metrics', { authorization: `Bearer ${METRICS_TOKEN}` });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toContain('text/plain');
    expect(parsePrometheusText(await ok.text()).size).toBeGreaterThan(10);
    expect((await scrape('/metrics')).status).toBe(401);
    expect((await scrape('/metrics', { authorization: 'Bearer wrong-token-000' })).status).toBe(401);
    expect((await scrape('/health')).status).toBe(404);
    expect((await scrape('/ai/chat')).status).toBe(404);
  });

  it('documents the monitoring routes in OpenAPI', async () => {
    const res = await t.request({ method: 'GET', url: '/docs-json' });
    expect(res.statusCode).toBe(200);
    const paths = Object.keys(res.json<{ paths: Record<string, unknown> }>().paths);
    expect(paths).toEqual(expect.arrayContaining(['/admin/monitoring/conversations', '/admin/monitoring/conversations/{id}', '/admin/monitoring/stats']));
  });

  describe('jobs.cleanup', () => {
    it('is defined with a daily schedule', () => {
      const jobs = t.app.get(JobsService);
      expect(jobs.scheduleOf(JOBS_CLEANUP_JOB)).toBe(JOBS_CLEANUP_CRON);
      expect(JOBS_CLEANUP_CRON).toMatch(/^\d+ \d+ \* \* \*$/);
    });

    it("deletes only this tenant's finished runs older than the retention period, and records the run", async () => {
      const insert = (tenantId: string, status: string, ageDays: number) =>
        t.db.pool.query<{ id: string }>(
          `INSERT INTO job_run (tenant_id, name, trigger, status, created_at, finished_at)
           VALUES ($1, 'test.not-defined', 'manual', $2::varchar, now() - make_interval(days => $3), CASE WHEN $2::varchar IN ('succeeded', 'failed') THEN now() - make_interval(days => $3) END)
           RETURNING id`,
          [tenantId, status, ageDays],
        );
      const oldOk = await insert(acme.id, 'succeeded', 11);
      const oldFailed = await insert(acme.id, 'failed', 40);
      const recent = await insert(acme.id, 'succeeded', 9);
      const oldQueued = await insert(acme.id, 'queued', 40);
      const foreign = await insert(other.id, 'succeeded', 40);
      const jobs = t.app.get(JobsService);
      const run = await jobs.enqueue(asTenantId(acme.id), JOBS_CLEANUP_JOB, {}, { trigger: 'manual' });
      await jobs.runPending();
      const { rows } = await t.db.pool.query<{ id: string }>('SELECT id FROM job_run');
      const left = new Set(rows.map((r) => r.id));
      expect(left.has(oldOk.rows[0]!.id)).toBe(false);
      expect(left.has(oldFailed.rows[0]!.id)).toBe(false);
      expect(left.has(recent.rows[0]!.id)).toBe(true);
      expect(left.has(oldQueued.rows[0]!.id)).toBe(true);
      expect(left.has(foreign.rows[0]!.id)).toBe(true);
      const res = await t.request({ method: 'GET', url: `/admin/jobs/${run!.id}`, headers: { 'x-api-key': acme.operatorKey } });
      expect(res.json()).toMatchObject({ name: JOBS_CLEANUP_JOB, status: 'succeeded', processed: 2, details: { retentionDays: 10 } });
      // Idempotent: a second run finds nothing left to delete.
      const again = await jobs.enqueue(asTenantId(acme.id), JOBS_CLEANUP_JOB);
      await jobs.runPending();
      expect(await jobs.get(asTenantId(acme.id), again!.id)).toMatchObject({ status: 'succeeded', processed: 0 });
    });

    it('a scheduled tick enqueues one cleanup run per tenant', async () => {
      const jobs = t.app.get(JobsService);
      const tick = new Date('2031-01-02T03:17:00Z');
      await jobs.enqueueDueSchedules(new Date(tick.getTime() - 60_000));
      await jobs.enqueueDueSchedules(new Date(tick.getTime() + 1000));
      const { rows } = await t.db.pool.query<{ tenant_id: string; n: number }>(
        `SELECT tenant_id, count(*)::int AS n FROM job_run WHERE name = $1 AND trigger = 'schedule' GROUP BY tenant_id`,
        [JOBS_CLEANUP_JOB],
      );
      expect(rows.map((r) => r.tenant_id).sort()).toEqual([acme.id, other.id].sort());
      expect(rows.every((r) => r.n === 1)).toBe(true);
    });
  });
});
