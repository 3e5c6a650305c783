import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { JobsService } from '@arbiter/jobs';
import { measureDeadline } from '@arbiter/testing';
import { createTestApp, type TestApp, type TestTenant } from '../support/test-app.js';

/** Documents of tenant A's import (the bench, `bench:fairness`, imports 10,000). */
const DOCUMENTS = 1_000;
/**
 * A read of tenant B counts as late when it settles after a reference timer of this length (measureDeadline:
 * the timer is delayed by CPU contention in this process as much as the read), or of {@link IDLE_FACTOR} × the
 * reads' median measured just before the import if that is longer (a machine so loaded that an idle read is
 * slow makes the database thread slow too). The bar (issue 29 item 3) is p95 ≤ 100 ms on the benchmark; this is
 * the CI-sized, load-robust version. Before the change the reads' p95 during the import was 374–476 ms here.
 */
const READ_BOUND_MS = 250;
const IDLE_FACTOR = 20;
/** Tenant B's concurrent readers during the import. */
const READERS = 3;

/**
 * Issue 29, finding 4: one tenant's import starved the embedded database for the others (another tenant's
 * `GET /api/sessions/:id` median 12.6 s) while `/health` said `ok`. The import job now writes in small
 * transactions, each a turn at the BackgroundGate that requests go before (docs/hot-paths.md "Imports:
 * foreground first"). Both databases.
 */
describe('one tenant importing does not starve the database for the others (e2e)', () => {
  let t: TestApp;
  let importer: TestTenant;
  let neighbour: TestTenant;
  const sessionIds: string[] = [];

  beforeAll(async () => {
    t = await createTestApp({ BODY_LIMIT_BYTES: String(4 * 1024 * 1024), DB_POOL_MAX: '8' });
    importer = await t.createTenant();
    neighbour = await t.createTenant();
    for (const message of ['你好', 'How do I reset joint 3?', '示教器黑屏怎么办', 'firmware upgrade']) {
      const res = await t.request({ method: 'POST', url: '/ai/chat', headers: { 'x-api-key': neighbour.clientKey }, payload: { message } });
      expect(res.statusCode).toBe(200);
      sessionIds.push(res.json<{ sessionId: string }>().sessionId);
    }
  }, 240_000);
  afterAll(async () => {
    await t?.close();
  });

  it(`keeps another tenant's session reads within max(${READ_BOUND_MS} ms, ${IDLE_FACTOR}× the idle median) (p95) during a ${DOCUMENTS}-document import; /health says busy while requests queue`, async () => {
    const documents = Array.from({ length: DOCUMENTS }, (_, i) => ({
      domain: `notes-${i % 5}`,
      filePath: `notes/n-${i}.md`,
      title: `Note ${i}`,
      content: `Step ${i}: 机械臂第 ${i % 50} 号手册，检查急停按钮与电源指示灯。 Reset joint ${i % 6} and check encoder cable ${i % 31} before restart.`,
    }));
    const read = async (i: number) => {
      const res = await t.request({ method: 'GET', url: `/api/sessions/${sessionIds[i % sessionIds.length]}`, headers: { 'x-api-key': neighbour.clientKey } });
      if (res.statusCode !== 200) throw new Error(`session read: ${res.statusCode}`);
    };
    // The same readers for 3 s with nothing else running (after 1 s of warm-up): the idle median the bound may scale with.
    for (const until = performance.now() + 1000; performance.now() < until;) await read(0);
    const idle: number[] = [];
    const idleUntil = performance.now() + 3000;
    await Promise.all(
      Array.from({ length: READERS }, async (_, r) => {
        for (let i = r; performance.now() < idleUntil; i += READERS) {
          const s = performance.now();
          await read(i);
          idle.push(performance.now() - s);
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      }),
    );
    idle.sort((a, b) => a - b);
    const idleMedian = idle[Math.floor(idle.length / 2)]!;
    const boundMs = Math.max(READ_BOUND_MS, Math.round(IDLE_FACTOR * idleMedian));

    const started = await t.request({ method: 'POST', url: '/admin/knowledge/imports', headers: { 'x-api-key': importer.operatorKey }, payload: documents });
    expect(started.statusCode).toBe(202);
    const { importId } = started.json<{ importId: string }>();

    let importing = true;
    const job = t.app
      .get(JobsService)
      .runPending()
      .finally(() => (importing = false));
    const reads: { elapsedMs: number; lateByMs: number }[] = [];
    const readers = Array.from({ length: READERS }, async (_, r) => {
      for (let i = r; importing; i += READERS) {
        const m = await measureDeadline(boundMs, () => read(i));
        if (m.error) throw m.error;
        if (importing) reads.push(m);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    });

    // Requests queue: a burst of reads beyond the pool (8), and /health asked while they wait.
    const health: { status: string; database: string }[] = [];
    const bursts = (async () => {
      while (importing) {
        await new Promise((resolve) => setTimeout(resolve, 2000));
        if (!importing) break;
        let burstDone = false;
        const burst = Promise.all(Array.from({ length: 40 }, (_, i) => read(i))).finally(() => (burstDone = true));
        // Asked until it says busy or the burst is over: the first answer may come before the burst's reads reach the pool.
        let seen: { status: string; database: string };
        do {
          const res = await t.request({ method: 'GET', url: '/health' });
          expect(res.statusCode).toBe(200);
          const body = res.json<{ status: string; database: { status: string } }>();
          seen = { status: body.status, database: body.database.status };
        } while (!burstDone && !(seen.status === 'busy' && seen.database === 'busy'));
        health.push(seen);
        await burst;
      }
    })();
    await Promise.all([job, ...readers, bursts]);

    const status = (await t.request({ method: 'GET', url: `/admin/knowledge/imports/${importId}`, headers: { 'x-api-key': importer.operatorKey } })).json<{
      status: string;
      counts: Record<string, number>;
    }>();
    expect(status).toMatchObject({ status: 'succeeded', counts: { created: DOCUMENTS, failed: 0, pending: 0 } });

    const late = reads.filter((r) => r.lateByMs > 0).length;
    const sorted = reads.map((r) => r.elapsedMs).sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!.toFixed(1);
    process.stdout.write(
      `${t.db.kind}: ${reads.length} session reads of tenant B during the import: p50 ${at(0.5)} / p95 ${at(0.95)} / max ${sorted.at(-1)!.toFixed(1)} ms, ` +
        `${late} settled after the ${boundMs} ms reference timer (idle median ${idleMedian.toFixed(1)} ms); /health under ${health.length} bursts: ${JSON.stringify(countBy(health.map((h) => `${h.status}/${h.database}`)))}\n`,
    );
    expect(reads.length).toBeGreaterThan(50); // the import lasted long enough to say something
    expect(late / reads.length).toBeLessThanOrEqual(0.05);
    expect(health.length).toBeGreaterThan(0);
    // Every burst queues 40 reads on a pool of 8: /health must say so, at the top and for the database.
    expect(health.every((h) => h.status === 'busy' && h.database === 'busy')).toBe(true);
    // The queue drains: once the import and the bursts are over, /health is ok again.
    let after = '';
    for (let i = 0; i < 100 && after !== 'ok'; i++) {
      after = (await t.request({ method: 'GET', url: '/health' })).json<{ status: string }>().status;
      if (after !== 'ok') await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(after).toBe('ok');
  }, 180_000);
});

function countBy(values: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
}
