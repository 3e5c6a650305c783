import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { JobsService } from '@arbiter/jobs';
import { KnowledgeImportJob } from '@arbiter/retrieval';
import { testJobContext } from '../support/job-context.js';
import { createTestApp, type TestApp, type TestTenant } from '../support/test-app.js';

interface Started {
  importId: string;
  jobId: string | null;
  total: number;
  queued: number;
  failed: { index: number; filePath: string | null; status: string; error: { code: string; fields?: string[] } }[];
}
interface Status {
  importId: string;
  status: string;
  total: number;
  done: number;
  counts: Record<string, number>;
  failures: { index: number; status: string; error: { code: string } }[];
}

const doc = (i: number) => ({
  domain: 'manuals',
  filePath: `manuals/m-${i}.md`,
  title: `Manual ${i}`,
  content: `Step ${i}: 机械臂第 ${i} 号手册，检查急停按钮与电源指示灯。 Reset joint ${i} before use.`,
});

/** Issue 11 item 1: a large import is a resumable job with progress, not one long request. */
describe('knowledge imports as a resumable job (e2e)', () => {
  let t: TestApp;
  let acme: TestTenant;
  let other: TestTenant;
  const op = (tenant: TestTenant) => ({ 'x-api-key': tenant.operatorKey });
  const start = (tenant: TestTenant, payload: unknown) =>
    t.request({ method: 'POST', url: '/admin/knowledge/imports', headers: op(tenant), payload: payload as object });
  const status = async (tenant: TestTenant, id: string) =>
    (await t.request({ method: 'GET', url: `/admin/knowledge/imports/${id}`, headers: op(tenant) })).json<Status>();
  const documents = async (tenant: TestTenant) =>
    Number((await t.db.pool.query<{ n: string }>('SELECT count(*) AS n FROM knowledge_document WHERE tenant_id = $1', [tenant.id])).rows[0]!.n);

  beforeAll(async () => {
    t = await createTestApp();
    acme = await t.createTenant();
    other = await t.createTenant();
  }, 240_000);
  afterAll(async () => {
    await t?.close();
  });

  it('answers 202 at once, refuses bad items up front, and the job writes the rest with progress', async () => {
    const items = [...Array.from({ length: 45 }, (_, i) => doc(i)), { domain: 'x', title: 't', content: 'no path' }, doc(3), { ...doc(99), title: '  ' }];
    const res = await start(acme, items);
    expect(res.statusCode).toBe(202);
    const started = res.json<Started>();
    expect(started).toMatchObject({ total: 48, queued: 45 });
    expect(started.failed.map((f) => [f.index, f.error.code])).toEqual([
      [45, 'VALIDATION_FAILED'],
      [46, 'DUPLICATE_FILE_PATH'],
      [47, 'VALIDATION_FAILED'],
    ]);
    expect(await status(acme, started.importId)).toMatchObject({ status: 'queued', total: 48, done: 3, counts: { pending: 45, failed: 3 } });
    expect(await documents(acme)).toBe(0);

    await t.app.get(JobsService).runPending();
    const done = await status(acme, started.importId);
    expect(done).toMatchObject({ status: 'succeeded', total: 48, done: 48, counts: { created: 45, failed: 3, pending: 0, updated: 0 } });
    expect(done.failures.map((f) => f.index)).toEqual([45, 46, 47]);
    expect(await documents(acme)).toBe(45);
    const run = (await t.request({ method: 'GET', url: `/admin/jobs/${started.jobId}`, headers: op(acme) })).json<{ processed: number; failed: number }>();
    expect(run).toMatchObject({ processed: 45, failed: 0 });
  });

  it('resumes after a crash at the first item without an outcome, writing nothing twice', async () => {
    const res = await start(acme, { documents: Array.from({ length: 50 }, (_, i) => doc(100 + i)) });
    const { importId } = res.json<Started>();
    const job = t.app.get(KnowledgeImportJob);
    const context = (onProgress: () => void) => testJobContext(acme.id, { importId }, onProgress);
    // The process dies right after the first batch was written and recorded.
    await expect(
      job.run(
        context(() => {
          throw new Error('killed');
        }),
      ),
    ).rejects.toThrow('killed');
    const midway = await status(acme, importId);
    expect(midway.counts).toMatchObject({ created: 20, pending: 30 });
    await job.run(context(() => undefined));
    expect((await status(acme, importId)).counts).toMatchObject({ created: 50, updated: 0, unchanged: 0, pending: 0 });
    expect(await documents(acme)).toBe(95);
  });

  it('rejects an empty or oversized import (400) and stores nothing', async () => {
    const before = Number((await t.db.pool.query<{ n: string }>('SELECT count(*) AS n FROM knowledge_import WHERE tenant_id = $1', [acme.id])).rows[0]!.n);
    expect((await start(acme, [])).statusCode).toBe(400);
    const tooMany = await start(
      acme,
      Array.from({ length: 10_001 }, () => ({})),
    );
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json<{ message: string }>().message).toContain('at most 10000 documents per import');
    expect((await start(acme, { documents: 'not documents' })).statusCode).toBe(400);
    const ndjson = await t.request({
      method: 'POST',
      url: '/admin/knowledge/imports',
      headers: { ...op(acme), 'content-type': 'application/x-ndjson' },
      payload: `${JSON.stringify(doc(1))}\nnot json\n`,
    });
    expect(ndjson.statusCode).toBe(400);
    expect(ndjson.json<{ message: string }>().message).toContain('line 2 is not valid JSON');
    const after = Number((await t.db.pool.query<{ n: string }>('SELECT count(*) AS n FROM knowledge_import WHERE tenant_id = $1', [acme.id])).rows[0]!.n);
    expect(after).toBe(before);
  });

  it('is tenant-scoped and operator-only', async () => {
    const { importId } = (await start(acme, [doc(500)])).json<Started>();
    expect((await t.request({ method: 'GET', url: `/admin/knowledge/imports/${importId}`, headers: op(other) })).statusCode).toBe(404);
    expect((await t.request({ method: 'GET', url: `/admin/knowledge/imports/${importId}`, headers: { 'x-api-key': acme.clientKey } })).statusCode).toBe(403);
    expect(
      (await t.request({ method: 'POST', url: '/admin/knowledge/imports', headers: { 'x-api-key': acme.clientKey }, payload: [doc(501)] })).statusCode,
    ).toBe(403);
    expect((await t.request({ method: 'GET', url: '/admin/knowledge/imports/not-a-uuid', headers: op(acme) })).statusCode).toBe(400);
    // The other tenant's job run does not write into acme: acme's import is written by acme's run only.
    await t.app.get(JobsService).runPending();
    expect(Number((await t.db.pool.query<{ n: string }>('SELECT count(*) AS n FROM knowledge_document WHERE tenant_id = $1', [other.id])).rows[0]!.n)).toBe(0);
  });
});
