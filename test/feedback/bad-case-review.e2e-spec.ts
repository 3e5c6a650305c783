import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestApp, type TestApp, type TestTenant } from '../support/test-app.js';

/**
 * Bad-case review (docs/learning.md "Review"): PUT /admin/bad-cases/:sessionId/review sets a bad case's correct
 * intent and/or knowledge document, a note, and resolves or reopens it; GET /admin/bad-cases filters on the status.
 */
const RULES = [
  { intent: 'fault', keywords: ['报警'], semanticExamples: ['机械臂报警了怎么办'], action: 'knowledge', priority: 10 },
  { intent: 'cooling', keywords: ['散热风扇'], semanticExamples: ['散热风扇坏了'], action: 'knowledge', priority: 10 },
];

interface Review {
  status: 'OPEN' | 'RESOLVED';
  intent: string | null;
  document: { id: string; title: string; filePath: string } | null;
  note: string | null;
  resolvedAt: string | null;
  updatedAt: string;
}
interface BadCase {
  sessionId: string;
  label: { intent: string; ruleId: string | null; example: string | null; labelledAt: string } | null;
  review: Review | null;
}

describe('bad-case review (e2e)', () => {
  let t: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  let docA: string;
  let docB: string;
  let counter = 0;

  const send = (
    tenant: TestTenant,
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    payload?: unknown,
    key: 'operatorKey' | 'clientKey' = 'operatorKey',
  ) => t.request({ method, url, headers: { 'x-api-key': tenant[key] }, ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}) });
  const review = (tenant: TestTenant, sessionId: string, payload: unknown) => send(tenant, 'PUT', `/admin/bad-cases/${sessionId}/review`, payload);
  /** A new bad case of the tenant: a chat turn marked not_useful. */
  const badCase = async (tenant: TestTenant, message = `机械臂报警 E${100 + ++counter} 怎么处理`): Promise<string> => {
    const res = await send(tenant, 'POST', '/ai/chat', { message }, 'clientKey');
    expect([res.statusCode, res.body.slice(0, 200)]).toEqual([200, expect.any(String)]);
    const sessionId = res.json<{ sessionId: string }>().sessionId;
    expect((await send(tenant, 'POST', '/api/feedback', { sessionId, feedback: 'not_useful' }, 'clientKey')).statusCode).toBe(200);
    return sessionId;
  };
  const stored = async (sessionId: string) =>
    (
      await t.db.pool.query(
        `SELECT intent, rule_id, example, document_id, note, status, resolved_at IS NOT NULL AS resolved, updated_at FROM bad_case_label WHERE session_id = $1`,
        [sessionId],
      )
    ).rows;
  const listed = async (tenant: TestTenant, query = ''): Promise<BadCase[]> => {
    const res = await send(tenant, 'GET', `/admin/bad-cases?limit=100${query}`);
    expect(res.statusCode).toBe(200);
    return res.json<{ items: BadCase[] }>().items;
  };
  const document = async (tenant: TestTenant, filePath: string, title: string): Promise<string> => {
    const res = await send(tenant, 'POST', '/admin/knowledge/documents', { domain: 'arm', filePath, title, content: `${title}：断电后检查伺服驱动器接线。` });
    expect([res.statusCode, res.body.slice(0, 200)]).toEqual([201, expect.any(String)]);
    return res.json<{ document: { id: string } }>().document.id;
  };

  beforeAll(async () => {
    t = await createTestApp();
    a = await t.createTenant('review-a');
    b = await t.createTenant('review-b');
    for (const tenant of [a, b]) {
      const res = await send(tenant, 'POST', '/admin/intent-rules/bulk', { rules: RULES });
      expect([res.statusCode, res.body.slice(0, 200)]).toEqual([201, expect.any(String)]);
    }
    docA = await document(a, 'arm/servo.md', '伺服驱动器手册');
    docB = await document(b, 'arm/b-only.md', 'B 的文档');
  }, 180_000);
  afterAll(async () => {
    await t?.close();
  });

  it('sets the intent, the document and a note; resolves and reopens; null clears; the queue shows it', async () => {
    const sid = await badCase(a);
    const before = (await listed(a)).find((c) => c.sessionId === sid);
    expect(before).toMatchObject({ label: null, review: null });

    let res = await review(a, sid, { intent: ' cooling ' });
    expect([res.statusCode, res.body.slice(0, 300)]).toEqual([200, expect.any(String)]);
    expect(res.json<BadCase>()).toMatchObject({
      sessionId: sid,
      label: { intent: 'cooling', ruleId: null, example: null },
      review: { status: 'OPEN', intent: 'cooling', document: null, note: null, resolvedAt: null, updatedAt: expect.any(String) },
    });

    res = await review(a, sid, { documentId: docA, note: '见第 3 节' });
    expect(res.json<BadCase>().review).toMatchObject({
      intent: 'cooling',
      document: { id: docA, title: '伺服驱动器手册', filePath: 'arm/servo.md' },
      note: '见第 3 节',
      status: 'OPEN',
    });

    res = await review(a, sid, { status: 'RESOLVED' });
    const resolved = res.json<BadCase>().review!;
    expect(resolved).toMatchObject({ status: 'RESOLVED', resolvedAt: expect.any(String), note: '见第 3 节' });
    expect((await review(a, sid, { status: 'RESOLVED' })).json<BadCase>().review!.resolvedAt).toBe(resolved.resolvedAt);

    res = await review(a, sid, { status: 'OPEN' });
    expect(res.json<BadCase>().review).toMatchObject({ status: 'OPEN', resolvedAt: null });

    res = await review(a, sid, { intent: null, documentId: null, note: null });
    expect(res.json<BadCase>()).toMatchObject({ label: null, review: { status: 'OPEN', intent: null, document: null, note: null } });

    // A document deleted later reads as none; the bad case is intact.
    const doomed = await document(a, 'arm/doomed.md', '将删除');
    expect((await review(a, sid, { documentId: doomed, note: 'n' })).json<BadCase>().review?.document).toMatchObject({ id: doomed });
    expect((await send(a, 'DELETE', `/admin/knowledge/documents/${doomed}`)).statusCode).toBe(204);
    expect((await listed(a)).find((c) => c.sessionId === sid)?.review).toMatchObject({ document: null, note: 'n' });
  });

  it('filters the queue on the status (a case never reviewed is OPEN); other values are a 400', async () => {
    const open = await badCase(a);
    const done = await badCase(a);
    expect((await review(a, done, { status: 'RESOLVED' })).statusCode).toBe(200);
    const openIds = (await listed(a, '&status=OPEN')).map((c) => c.sessionId);
    const resolvedIds = (await listed(a, '&status=RESOLVED')).map((c) => c.sessionId);
    expect(openIds).toContain(open);
    expect(openIds).not.toContain(done);
    expect(resolvedIds).toContain(done);
    expect(resolvedIds).not.toContain(open);
    expect((await listed(a, '&status=RESOLVED')).every((c) => c.review?.status === 'RESOLVED')).toBe(true);
    for (const bad of ['DONE', 'open', '']) {
      const res = await send(a, 'GET', `/admin/bad-cases?status=${bad}`);
      expect([bad, res.statusCode, res.json<{ message: string }>().message]).toEqual([bad, 400, expect.stringContaining('status')]);
    }
  });

  it('answers 400 naming the field and writes nothing; 404 for what is not a bad case of the tenant', async () => {
    const sid = await badCase(a);
    expect((await review(a, sid, { note: 'kept' })).statusCode).toBe(200);
    const [before] = await stored(sid);

    const cases: [string, unknown, string][] = [
      ['empty body', {}, 'intent, documentId, note and/or status'],
      ['unknown intent', { intent: 'no_such_intent', note: 'x' }, 'intent'],
      ['blank intent', { intent: '  ' }, 'intent'],
      ['unknown document', { documentId: '00000000-0000-4000-8000-000000000000', note: 'x' }, 'documentId'],
      ["another tenant's document", { documentId: docB }, 'documentId'],
      ['not a uuid', { documentId: 'abc' }, 'documentId'],
      ['note over 1,000 characters', { note: 'x'.repeat(1001) }, 'note'],
      ['unknown status', { status: 'DONE', note: 'x' }, 'status'],
      ['status null', { status: null }, 'status'],
      ['unknown field', { notes: 'x' }, 'notes'],
    ];
    for (const [name, payload, field] of cases) {
      const res = await review(a, sid, payload);
      expect([name, res.statusCode, res.json<{ message: string }>().message]).toEqual([name, 400, expect.stringContaining(field)]);
    }
    const unknown = await review(a, sid, { intent: 'no_such_intent' });
    expect(unknown.json<{ message: string }>().message).toContain('no_such_intent');
    expect(await stored(sid)).toEqual([before]);

    expect((await review(a, '00000000-0000-4000-8000-000000000000', { note: 'x' })).statusCode).toBe(404);
    expect((await review(a, 'not-a-uuid', { note: 'x' })).statusCode).toBe(400);
    // A session that is no bad case (marked useful): 404, nothing written.
    const chat = await send(a, 'POST', '/ai/chat', { message: '散热风扇坏了' }, 'clientKey');
    const useful = chat.json<{ sessionId: string }>().sessionId;
    await send(a, 'POST', '/api/feedback', { sessionId: useful, feedback: 'useful' }, 'clientKey');
    expect((await review(a, useful, { note: 'x' })).statusCode).toBe(404);
    expect(await stored(useful)).toEqual([]);
  });

  it("tenant B can neither review nor see tenant A's case, nor point A's case at B's document", async () => {
    const sid = await badCase(a);
    expect((await review(b, sid, { note: 'hijack' })).statusCode).toBe(404);
    expect((await review(b, sid, { status: 'RESOLVED' })).statusCode).toBe(404);
    expect(await stored(sid)).toEqual([]);
    expect((await listed(b)).map((c) => c.sessionId)).not.toContain(sid);
    expect((await listed(b, '&status=OPEN')).map((c) => c.sessionId)).not.toContain(sid);
    // B's own case cannot name A's document either.
    const own = await badCase(b);
    const res = await review(b, own, { documentId: docA });
    expect([res.statusCode, res.json<{ message: string }>().message]).toEqual([400, expect.stringContaining('documentId')]);
    expect(await stored(own)).toEqual([]);
  });

  it('a client key is refused (403)', async () => {
    const sid = await badCase(a);
    expect((await send(a, 'PUT', `/admin/bad-cases/${sid}/review`, { note: 'x' }, 'clientKey')).statusCode).toBe(403);
    expect((await send(a, 'GET', `/admin/bad-cases?status=OPEN`, undefined, 'clientKey')).statusCode).toBe(403);
    expect(await stored(sid)).toEqual([]);
  });

  it('accept-example and the review on the same case concurrently lose neither’s fields', async () => {
    for (let i = 0; i < 3; i++) {
      const question = `散热风扇异响 第${++counter}次`;
      const sid = await badCase(a, question);
      const [accepted, reviewed] = await Promise.all([
        send(a, 'POST', `/admin/bad-cases/${sid}/accept-example`, { intent: 'cooling' }),
        review(a, sid, { documentId: docA, note: `并发 ${i}`, status: 'RESOLVED' }),
      ]);
      expect([accepted.statusCode, accepted.body.slice(0, 200)]).toEqual([200, expect.any(String)]);
      expect([reviewed.statusCode, reviewed.body.slice(0, 200)]).toEqual([200, expect.any(String)]);
      const ruleId = accepted.json<{ ruleId: string }>().ruleId;
      expect(await stored(sid)).toEqual([
        {
          intent: 'cooling',
          rule_id: ruleId,
          example: question,
          document_id: docA,
          note: `并发 ${i}`,
          status: 'RESOLVED',
          resolved: true,
          updated_at: expect.any(Date),
        },
      ]);
      expect((await listed(a)).find((c) => c.sessionId === sid)).toMatchObject({
        label: { intent: 'cooling', ruleId, example: question },
        review: { status: 'RESOLVED', intent: 'cooling', document: { id: docA }, note: `并发 ${i}` },
      });
    }
  }, 60_000);
});
