import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestApp, type TestApp, type TestTenant } from '../support/test-app.js';

/**
 * Every keyset-paginated list walks rows created within ONE millisecond (different microseconds)
 * exactly once with page size 2. A cursor built from a JS Date (milliseconds) compared against the
 * microsecond timestamptz column skipped them all: page 2 came back empty.
 */
const SAME_MS = ['2026-11-30T10:00:00.123001Z', '2026-11-30T10:00:00.123002Z', '2026-11-30T10:00:00.123003Z', '2026-11-30T10:00:00.123004Z'];

describe('keyset pagination keeps microseconds (e2e)', () => {
  let t: TestApp;
  let tenant: TestTenant;
  const op = () => ({ 'x-api-key': tenant.operatorKey });

  /** Every id of a list, page by page (size 2), following nextCursor. */
  const walk = async (url: string): Promise<{ ids: string[]; pages: number }> => {
    const ids: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const sep = url.includes('?') ? '&' : '?';
      const res = await t.request({ method: 'GET', url: `${url}${sep}limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, headers: op() });
      expect([res.statusCode, res.body.slice(0, 200)]).toEqual([200, expect.any(String)]);
      const body = res.json<{ items: Record<string, string>[]; nextCursor: string | null }>();
      ids.push(...body.items.map((i) => i['id'] ?? i['sessionId']!));
      cursor = body.nextCursor;
      pages++;
    } while (cursor !== null && pages < 10);
    return { ids, pages };
  };
  const stamp = async (table: string, column: string, ids: string[]) => {
    for (const [i, id] of ids.entries()) await t.db.pool.query(`UPDATE ${table} SET ${column} = $1::timestamptz WHERE id = $2`, [SAME_MS[i], id]);
  };
  const ingest = async (query: string): Promise<string> => {
    const res = await t.request({
      method: 'POST',
      url: '/api/sessions',
      headers: { 'x-api-key': tenant.clientKey },
      payload: { query, answer: 'ok', status: 'SUCCESS' },
    });
    expect(res.statusCode).toBe(201);
    return res.json<{ id: string }>().id;
  };
  const feedback = async (sessionId: string, value: string) => {
    const res = await t.request({ method: 'POST', url: '/api/feedback', headers: { 'x-api-key': tenant.clientKey }, payload: { sessionId, feedback: value } });
    expect(res.statusCode).toBe(200);
  };
  const expectAllOnce = (walked: { ids: string[] }, expected: string[]) => {
    expect(walked.ids).toHaveLength(expected.length);
    expect([...walked.ids].sort()).toEqual([...expected].sort());
  };

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await t.createTenant('keyset');
  }, 180_000);
  afterAll(async () => {
    await t?.close();
  });

  /** Creates four rows through the API, stamps them into one millisecond, walks the list: each once, newest first. */
  const fourInOneMillisecond = async (create: (n: number) => Promise<string>, table: string, list: string) => {
    const ids: string[] = [];
    for (const n of [1, 2, 3, 4]) ids.push(await create(n));
    await stamp(table, 'created_at', ids);
    const walked = await walk(list);
    expectAllOnce(walked, ids);
    // newest first: the microseconds order the rows
    expect(walked.ids).toEqual([...ids].reverse());
    expect(walked.pages).toBe(2);
  };
  const post = async (url: string, payload: Record<string, unknown>, status: number): Promise<Record<string, string>> => {
    const res = await t.request({ method: 'POST', url, headers: op(), payload });
    expect(res.statusCode).toBe(status);
    return res.json<Record<string, string>>();
  };

  it('intent rules', async () => {
    await fourInOneMillisecond(
      async (n) => (await post('/admin/intent-rules', { intent: `i${n}`, keywords: [`kw${n}`] }, 201))['id']!,
      'intent_rule',
      '/admin/intent-rules',
    );
  });

  it('knowledge documents', async () => {
    await fourInOneMillisecond(
      async (n) =>
        (
          (await post('/admin/knowledge/documents', { domain: 'd', filePath: `k/${n}.md`, title: `Doc ${n}`, content: `content ${n}` }, 201)) as unknown as {
            document: { id: string };
          }
        ).document.id,
      'knowledge_document',
      '/admin/knowledge/documents',
    );
  });

  it('jobs', async () => {
    await fourInOneMillisecond(async () => (await post('/admin/coverage/re-evaluate', {}, 202))['jobId']!, 'job_run', '/admin/jobs');
  });

  it('bad cases and the case library', async () => {
    const bad = [await ingest('b1'), await ingest('b2'), await ingest('b3'), await ingest('b4')];
    const good = [await ingest('g1'), await ingest('g2'), await ingest('g3'), await ingest('g4')];
    for (const id of bad) await feedback(id, 'not_useful');
    for (const id of good) await feedback(id, 'useful');
    const feedbackIds = (
      await t.db.pool.query<{ id: string }>(
        'SELECT f.id FROM session_feedback f JOIN unnest($1::uuid[]) WITH ORDINALITY u(sid, n) ON u.sid = f.session_id ORDER BY u.n',
        [bad],
      )
    ).rows.map((r) => r.id);
    await stamp('session_feedback', 'updated_at', feedbackIds);
    expectAllOnce(await walk('/admin/bad-cases'), bad);
    const caseIds = (
      await t.db.pool.query<{ id: string }>(
        'SELECT c.id FROM case_library c JOIN unnest($1::uuid[]) WITH ORDINALITY u(sid, n) ON u.sid = c.session_id ORDER BY u.n',
        [good],
      )
    ).rows.map((r) => r.id);
    await stamp('case_library', 'created_at', caseIds);
    expectAllOnce(await walk('/admin/case-library'), caseIds);
  });

  it('monitoring conversations', async () => {
    const sessions = [await ingest('c1'), await ingest('c2'), await ingest('c3'), await ingest('c4')];
    const conversations = (
      await t.db.pool.query<{ id: string }>(
        'SELECT s.conversation_id AS id FROM diagnosis_session s JOIN unnest($1::uuid[]) WITH ORDINALITY u(sid, n) ON u.sid = s.id ORDER BY u.n',
        [sessions],
      )
    ).rows.map((r) => r.id);
    // the other conversations of the tenant are older
    await t.db.pool.query(`UPDATE conversation SET last_activity_at = '2026-11-29T00:00:00Z' WHERE tenant_id = $1`, [tenant.id]);
    await stamp('conversation', 'last_activity_at', conversations);
    const walked = await walk('/admin/monitoring/conversations?from=2026-11-30T00:00:00Z&to=2026-11-30T23:59:59Z');
    expectAllOnce(walked, conversations);
  });

  it('rejects a malformed or millisecond-free cursor with 400, and an over-long one', async () => {
    const bad = Buffer.from(JSON.stringify(['yesterday', '00000000-0000-4000-8000-000000000000'])).toString('base64url');
    for (const url of [
      '/admin/intent-rules',
      '/admin/knowledge/documents',
      '/admin/jobs',
      '/admin/bad-cases',
      '/admin/case-library',
      '/admin/monitoring/conversations',
    ]) {
      expect((await t.request({ method: 'GET', url: `${url}?cursor=${bad}`, headers: op() })).statusCode).toBe(400);
      expect((await t.request({ method: 'GET', url: `${url}?cursor=${'x'.repeat(201)}`, headers: op() })).statusCode).toBe(400);
      expect((await t.request({ method: 'GET', url: `${url}?limit=201`, headers: op() })).statusCode).toBe(400);
    }
  });
});
