import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestApp, type TestApp } from '../support/test-app.js';

/**
 * Issue 11: a multi-second statement must not stall HTTP handling. On the embedded database the
 * statement runs in the database's own thread; `/health` answers within its ~50 ms budget (`busy`
 * while its probe waits behind the statement) and routes that need no database answer at once.
 */
describe('HTTP stays responsive while the database runs a long statement (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    // Room for the largest legal document (2 MiB of content) in one JSON body.
    t = await createTestApp({
      BODY_LIMIT_BYTES: String(3 * 1024 * 1024),
      ...((process.env.TEST_DB ?? 'pglite') !== 'pglite' ? {} : { DB_HEALTH_BUSY_LIMIT_MS: '300000' }),
    });
  }, 240_000);
  afterAll(async () => {
    await t.close();
  });

  it('answers /health (p99 ≤ 100 ms, never 503) and /metrics during a multi-second statement', async () => {
    expect((await t.request({ method: 'GET', url: '/health' })).json()).toMatchObject({ status: 'ok', database: { status: 'up' } });
    // The statement's size is calibrated on this machine (a fixed row count ran under 1 s on a faster CI machine):
    // a short probe of the same statement, then enough rows for about 3 s. Thousand-row blocks keep both
    // function scans' tuplestores small.
    const countRows = (blocks: number): string => `SELECT count(*) AS n FROM generate_series(1, ${blocks}) a, generate_series(1, 1000) b`;
    const probeBlocks = t.db.kind === 'pglite' ? 500 : 5_000;
    let probeMs = Infinity; // the faster of two probes: the first one also warms the connection
    for (let i = 0; i < 2; i++) {
      const probeStarted = performance.now();
      await t.db.pool.query(countRows(probeBlocks));
      probeMs = Math.min(probeMs, Math.max(performance.now() - probeStarted, 1));
    }
    const blocks = Math.min(Math.ceil((probeBlocks * 3_000) / probeMs), 1_000_000);
    const rows = blocks * 1_000;
    const started = performance.now();
    let done = false;
    const heavy = t.db.pool.query<{ n: string }>(countRows(blocks)).finally(() => (done = true));
    const latencies: number[] = [];
    const statuses = new Map<string, number>();
    let metricsSlowest = 0;
    // Latency counts from when a poll was due (every 20 ms), so a stalled event loop shows in full.
    let due = performance.now();
    while (!done) {
      const res = await t.request({ method: 'GET', url: '/health' });
      latencies.push(performance.now() - due);
      expect(res.statusCode).toBe(200);
      const db = res.json<{ database: { status: string } }>().database.status;
      statuses.set(db, (statuses.get(db) ?? 0) + 1);
      if (latencies.length % 10 === 0) {
        const m = performance.now();
        expect((await t.request({ method: 'GET', url: '/metrics' })).statusCode).toBe(200);
        metricsSlowest = Math.max(metricsSlowest, performance.now() - m);
      }
      due = performance.now() + 20;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const heavyMs = performance.now() - started;
    expect((await heavy).rows[0]!.n).toBe(String(rows));

    latencies.sort((a, b) => a - b);
    const p99 = latencies[Math.floor(latencies.length * 0.99)]!;
    const max = latencies.at(-1)!;
    process.stdout.write(
      `/health during a ${Math.round(heavyMs)} ms statement: ${latencies.length} polls, p50 ${latencies[Math.floor(latencies.length / 2)]!.toFixed(1)} / p99 ${p99.toFixed(1)} / max ${max.toFixed(1)} ms, ` +
        `database ${JSON.stringify(Object.fromEntries(statuses))}; slowest /metrics ${metricsSlowest.toFixed(1)} ms\n`,
    );
    expect(heavyMs).toBeGreaterThan(1000); // otherwise the test proves nothing
    expect(latencies.length).toBeGreaterThan(heavyMs / 100 / 4);
    expect(p99).toBeLessThanOrEqual(100);
    // After the statement, the probe answers again (a few polls: the machine may be busy).
    let after = '';
    for (let i = 0; i < 100 && after !== 'up'; i++) {
      after = (await t.request({ method: 'GET', url: '/health' })).json<{ database: { status: string } }>().database.status;
      if (after !== 'up') await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(after).toBe('up');
  });

  /**
   * The row: one legal 256 KiB upsert stalled `/health` 11 s on the embedded database. Chunking,
   * embedding (yields between batches) and the writes (database thread) must leave the loop free.
   * `HEALTH_IMPORT_BYTES=2097152` measures the 2 MiB case the README reports (too slow for CI).
   */
  it('answers /health (p99 ≤ 100 ms, never 503) while a large document is imported', async () => {
    const tenant = await t.createTenant();
    const bytes = Number(process.env.HEALTH_IMPORT_BYTES ?? 256 * 1024);
    const content = supportArticle(bytes);
    let done = false;
    const started = performance.now();
    const upsert = t
      .request({
        method: 'POST',
        url: '/admin/knowledge/documents',
        headers: { 'x-api-key': tenant.operatorKey },
        payload: { domain: 'manuals', filePath: 'manuals/large.md', title: 'Large manual', content },
      })
      .finally(() => (done = true));
    const latencies = await pollHealthUntil(() => done);
    const res = await upsert;
    const importMs = performance.now() - started;
    expect(res.statusCode).toBe(201);
    const chunks = res.json<{ document: { chunkCount: number } }>().document.chunkCount;
    const p99 = percentile(latencies, 0.99);
    process.stdout.write(
      `/health during a ${Buffer.byteLength(content)} B upsert (${chunks} chunks, ${Math.round(importMs)} ms): ${latencies.length} polls, p50 ${percentile(latencies, 0.5).toFixed(1)} / p99 ${p99.toFixed(1)} / max ${latencies.at(-1)!.toFixed(1)} ms\n`,
    );
    expect(chunks).toBeGreaterThan(100);
    expect(latencies.length).toBeGreaterThan(5); // the import lasted long enough to say something
    expect(p99).toBeLessThanOrEqual(100);
  });

  /** Polls `/health` every 20 ms until `stop()`; each latency counts from when the poll was due. */
  async function pollHealthUntil(stop: () => boolean): Promise<number[]> {
    const latencies: number[] = [];
    let due = performance.now();
    while (!stop()) {
      const res = await t.request({ method: 'GET', url: '/health' });
      latencies.push(performance.now() - due);
      expect(res.statusCode).toBe(200);
      due = performance.now() + 20;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return latencies.sort((a, b) => a - b);
  }
});

function percentile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!;
}

/** Mixed Chinese/English support prose of about `bytes` UTF-8 bytes (varied so chunks differ). */
function supportArticle(bytes: number): string {
  const lines = [
    '示教器屏幕不亮时，先检查电源指示灯和急停按钮的状态，再确认电缆连接是否松动。',
    'If the teach pendant stays dark, check the power LED and the emergency stop before reseating the cable.',
    '机械臂复位前请确认工作区域内无人员，并将速度倍率调至百分之十以下。',
    'Lubricate joints 1 to 3 every 2,000 operating hours with the grease named in the service manual.',
  ];
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = `${i}. ${lines[i % lines.length]} (section ${Math.floor(i / 7)}, step ${i % 13})\n`;
    size += Buffer.byteLength(line);
    parts.push(line);
  }
  return parts.join('');
}
