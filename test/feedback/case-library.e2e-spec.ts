import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { isBackgroundStatement, roundTripCounter } from '../support/round-trips.js';
import { createTestApp, type TestApp, type TestTenant } from '../support/test-app.js';
import { pollUntil } from '@arbiter/testing';

/**
 * Feedback that teaches (issue 14, item 6; docs/learning.md "Feedback that teaches"): verified cases answer
 * chat messages, edits and retractions apply at once, the threshold is per tenant; a bad case's question is
 * accepted as a semantic example of its correct intent.
 */
const RULES = [
  { intent: 'human_agent', keywords: ['转人工'], semanticExamples: ['我要找人工客服'], action: 'transfer', priority: 20 },
  { intent: 'fault', keywords: ['报警'], semanticExamples: ['机械臂报警了怎么办'], action: 'knowledge', priority: 10 },
  { intent: 'cooling', keywords: ['散热风扇'], semanticExamples: ['散热风扇坏了'], action: 'knowledge', priority: 10 },
];

interface ChatBody {
  sessionId: string;
  reply: string;
  confidence: number;
  intent: string | null;
  shouldTransfer: boolean;
  caseLibrary: { caseId: string; query: string; similarity: number; threshold: number } | null;
}

/** Polls `probe` until it returns a value (not undefined) or the deadline passes (then fails with the last state). */
const eventually = async <T>(what: string, probe: () => Promise<T | undefined>, deadlineMs: number): Promise<T> =>
  (await pollUntil(what, probe, (value) => value !== undefined, { deadlineMs, intervalMs: 50 })).value as T;

describe('case library answers and bad cases accepted as examples (e2e)', () => {
  let t: TestApp;
  let a: TestTenant;
  let b: TestTenant;

  const send = (
    tenant: TestTenant,
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    payload?: unknown,
    key: 'operatorKey' | 'clientKey' = 'operatorKey',
  ) => t.request({ method, url, headers: { 'x-api-key': tenant[key] }, ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}) });
  const chat = async (tenant: TestTenant, message: string): Promise<ChatBody> => {
    const res = await send(tenant, 'POST', '/ai/chat', { message }, 'clientKey');
    expect([res.statusCode, res.body.slice(0, 200)]).toEqual([200, expect.any(String)]);
    return res.json<ChatBody>();
  };
  const chatTrace = async (sessionId: string) =>
    (await t.db.pool.query<{ route_trace: { chat: Record<string, unknown> } }>('SELECT route_trace FROM diagnosis_session WHERE id = $1', [sessionId])).rows[0]!
      .route_trace.chat;
  const markUseful = async (tenant: TestTenant, sessionId: string, value: 'useful' | 'not_useful'): Promise<string | null> => {
    const res = await send(tenant, 'POST', '/api/feedback', { sessionId, feedback: value }, 'clientKey');
    expect(res.statusCode).toBe(200);
    return res.json<{ caseId: string | null }>().caseId;
  };

  beforeAll(async () => {
    t = await createTestApp();
    a = await t.createTenant('cases-a');
    b = await t.createTenant('cases-b');
    for (const tenant of [a, b]) {
      const res = await send(tenant, 'POST', '/admin/intent-rules/bulk', { rules: RULES });
      expect([res.statusCode, res.body.slice(0, 200)]).toEqual([201, expect.any(String)]);
    }
  }, 180_000);
  afterAll(async () => {
    await t?.close();
  });

  it('a useful answer answers the same question (2 round trips); an edit changes it at once, a retraction removes it at once; tenant B never sees it', async () => {
    const question = '机械臂报警 E201 怎么处理？';
    const first = await chat(a, question);
    expect(first.caseLibrary).toBeNull();
    expect(await chatTrace(first.sessionId)).toMatchObject({ branch: 'knowledge' });
    const caseId = await markUseful(a, first.sessionId, 'useful');
    expect(caseId).toEqual(expect.any(String));

    // Answered by the case: same spacing or not, the reply is the verified answer and names the case.
    // The first turn after the change reloads the tenant's index (one statement); measured is the steady state.
    expect((await chat(a, question)).caseLibrary).toMatchObject({ caseId });
    const counter = roundTripCounter(t.app);
    let again: ChatBody;
    let statements: string[];
    try {
      const measured = await counter.measure(() => chat(a, '机械臂报警E201怎么处理'));
      again = measured.result;
      // Background statements are not the request's: version polls, the decision log's batch, the API key directory's check.
      statements = measured.trips.statements.filter((sql) => !isBackgroundStatement(sql) && !/WHERE tenant_id = ANY/.test(sql));
    } finally {
      counter.restore();
    }
    expect(again).toMatchObject({
      reply: first.reply,
      shouldTransfer: false,
      confidence: 1,
      caseLibrary: { caseId, query: question, similarity: 1, threshold: 0.85 },
    });
    // Start and finish: the case index is in memory.
    expect([statements.length, statements]).toEqual([Math.min(statements.length, 2), statements]);
    expect(await chatTrace(again.sessionId)).toMatchObject({
      branch: 'case_library',
      caseLibrary: { answered: true, caseId, sourceType: 'AUTO', similarity: 1, threshold: 0.85 },
      confidence: { source: 'case_library', score: 1 },
      lookups: [],
    });

    // Tenant B asks the same: its own (empty) library, never A's case; B cannot edit or retract A's case.
    const other = await chat(b, question);
    expect(other.caseLibrary).toBeNull();
    expect(other.reply).not.toBe('');
    expect((await send(b, 'PATCH', `/admin/case-library/${caseId}`, { answer: 'hijack' })).statusCode).toBe(404);
    expect((await send(b, 'DELETE', `/admin/case-library/${caseId}`)).statusCode).toBe(404);

    // Edited on this replica: the next message gets the new answer.
    const edited = await send(a, 'PATCH', `/admin/case-library/${caseId}`, { answer: '断电后检查伺服驱动器接线，再按复位键。' });
    expect([edited.statusCode, edited.json()]).toEqual([200, expect.objectContaining({ answer: '断电后检查伺服驱动器接线，再按复位键。' })]);
    expect(await chat(a, question)).toMatchObject({ reply: '断电后检查伺服驱动器接线，再按复位键。', caseLibrary: { caseId } });

    // Retracted on this replica: gone from the list and from the answers at once.
    expect((await send(a, 'DELETE', `/admin/case-library/${caseId}`)).statusCode).toBe(204);
    expect((await send(a, 'DELETE', `/admin/case-library/${caseId}`)).statusCode).toBe(404);
    expect((await send(a, 'GET', `/admin/case-library/${caseId}`)).statusCode).toBe(404);
    const after = await chat(a, question);
    expect(after.caseLibrary).toBeNull();
    expect(after.reply).not.toBe('断电后检查伺服驱动器接线，再按复位键。');
    expect(await chatTrace(after.sessionId)).toMatchObject({ branch: 'knowledge' });
  });

  it('a change written by another replica (straight to the database) is noticed within the version poll', async () => {
    const created = await send(a, 'POST', '/admin/case-library', { query: '示教器无法开机', answer: '检查示教器电源线。' });
    expect(created.statusCode).toBe(201);
    const id = created.json<{ id: string }>().id;
    expect(await chat(a, '示教器无法开机')).toMatchObject({ reply: '检查示教器电源线。', caseLibrary: { caseId: id } });
    // Not through this app: its index is not invalidated; the trigger moves the version and the poll (250 ms) reloads.
    await t.db.pool.query(`UPDATE case_library SET answer = '检查示教器保险丝。' WHERE id = $1`, [id]);
    await eventually('edited answer served', async () => ((await chat(a, '示教器无法开机')).reply === '检查示教器保险丝。' ? true : undefined), 10_000);
    await t.db.pool.query(`UPDATE case_library SET retracted_at = now() WHERE id = $1`, [id]);
    await eventually('retracted case gone', async () => ((await chat(a, '示教器无法开机')).caseLibrary === null ? true : undefined), 10_000);
  });

  it('the threshold is per tenant and decides; a hand-off intent is never answered by a case', async () => {
    const created = await send(a, 'POST', '/admin/case-library', { query: '控制柜散热不好', answer: '清理控制柜滤网。' });
    const id = created.json<{ id: string }>().id;
    expect(await send(a, 'GET', '/admin/case-library/settings').then((r) => r.json())).toEqual({
      threshold: 0.85,
      isDefault: true,
      version: expect.any(String),
    });

    const near = await chat(a, '控制柜散热不好怎么办');
    expect(near.caseLibrary).toBeNull();
    const seen = (await chatTrace(near.sessionId)).caseLibrary as { answered: false; bestSimilarity: number; threshold: number };
    expect(seen).toMatchObject({ answered: false, threshold: 0.85 });
    expect(seen.bestSimilarity).toBeGreaterThan(0.5);
    expect(seen.bestSimilarity).toBeLessThan(0.85);

    const put = await send(a, 'PUT', '/admin/case-library/settings', { threshold: seen.bestSimilarity });
    expect([put.statusCode, put.json()]).toEqual([200, { threshold: seen.bestSimilarity, isDefault: false, version: expect.any(String) }]);
    expect(await chat(a, '控制柜散热不好怎么办')).toMatchObject({ reply: '清理控制柜滤网。', caseLibrary: { caseId: id, threshold: seen.bestSimilarity } });
    // Tenant B keeps the default.
    expect((await send(b, 'GET', '/admin/case-library/settings')).json()).toMatchObject({ threshold: 0.85, isDefault: true });

    expect((await send(a, 'PUT', '/admin/case-library/settings', { threshold: null })).json()).toMatchObject({ threshold: 0.85, isDefault: true });
    expect((await chat(a, '控制柜散热不好怎么办')).caseLibrary).toBeNull();

    // The decided intent's hand-off comes first, whatever the case library holds.
    await send(a, 'POST', '/admin/case-library', { query: '帮我转人工', answer: '不用转人工，看手册。' });
    const handoff = await chat(a, '帮我转人工');
    expect(handoff).toMatchObject({ intent: 'human_agent', shouldTransfer: true, caseLibrary: null });
    expect(await chatTrace(handoff.sessionId)).toMatchObject({ branch: 'transfer' });
  });

  it.each([
    ['zero', { threshold: 0 }],
    ['negative', { threshold: -0.1 }],
    ['above one', { threshold: 1.01 }],
    ['a string', { threshold: '0.9' }],
    ['missing', {}],
    ['an unknown field', { threshold: 0.9, extra: 1 }],
  ])('threshold %s → 400 naming the field, nothing changes', async (_name, payload) => {
    const before = (await send(a, 'GET', '/admin/case-library/settings')).json();
    const res = await send(a, 'PUT', '/admin/case-library/settings', payload);
    expect(res.statusCode).toBe(400);
    expect(res.body).toMatch(/threshold|extra/);
    expect((await send(a, 'GET', '/admin/case-library/settings')).json()).toEqual(before);
  });

  it('a bad case accepted as an example of its correct intent: the message then routes to it (retrained off the request thread)', async () => {
    const message = '控制柜里面呼呼响个不停';
    const routed = async () =>
      (await send(a, 'POST', '/ai/intent/route', { message }, 'clientKey')).json<{ finalIntent: string | null; decisionReason: string }>();
    expect((await routed()).finalIntent).not.toBe('cooling');
    const turn = await chat(a, message);
    await markUseful(a, turn.sessionId, 'not_useful');

    // Bad input, other tenants, and states that are not a bad case.
    expect((await send(a, 'POST', `/admin/bad-cases/${turn.sessionId}/accept-example`, { intent: 'no_such_intent' })).statusCode).toBe(400);
    expect((await send(a, 'POST', `/admin/bad-cases/${turn.sessionId}/accept-example`, {})).statusCode).toBe(400);
    expect((await send(a, 'POST', `/admin/bad-cases/not-a-uuid/accept-example`, { intent: 'cooling' })).statusCode).toBe(400);
    expect((await send(b, 'POST', `/admin/bad-cases/${turn.sessionId}/accept-example`, { intent: 'cooling' })).statusCode).toBe(404);
    const useful = await chat(a, '机械臂又报警了');
    expect((await send(a, 'POST', `/admin/bad-cases/${useful.sessionId}/accept-example`, { intent: 'cooling' })).statusCode).toBe(404);

    const res = await send(a, 'POST', `/admin/bad-cases/${turn.sessionId}/accept-example`, { intent: 'cooling' });
    expect([res.statusCode, res.body.slice(0, 300)]).toEqual([200, expect.any(String)]);
    expect(res.json()).toEqual({
      sessionId: turn.sessionId,
      intent: 'cooling',
      ruleId: expect.any(String),
      example: message,
      semanticExampleCount: 2,
      label: { intent: 'cooling', ruleId: expect.any(String), example: message, labelledAt: expect.any(String) },
    });
    const rule = await send(a, 'GET', `/admin/intent-rules/${res.json<{ ruleId: string }>().ruleId}`);
    expect(rule.json()).toMatchObject({ intent: 'cooling', semanticExamples: ['散热风扇坏了', message] });
    // The router compiles the new rule set on its next request and retrains on a worker thread: poll with a deadline.
    const decided = await eventually(
      'routes to cooling',
      async () => {
        const r = await routed();
        return r.finalIntent === 'cooling' ? r : undefined;
      },
      30_000,
    );
    expect(decided.finalIntent).toBe('cooling');
    // Tenant B's router is untouched.
    expect((await send(b, 'POST', '/ai/intent/route', { message }, 'clientKey')).json<{ finalIntent: string | null }>().finalIntent).not.toBe('cooling');

    // The label is on the bad case; accepting again is a conflict.
    const queue = (await send(a, 'GET', '/admin/bad-cases')).json<{ items: { sessionId: string; label: unknown }[] }>();
    expect(queue.items.find((i) => i.sessionId === turn.sessionId)?.label).toMatchObject({ intent: 'cooling', example: message });
    expect((await send(a, 'POST', `/admin/bad-cases/${turn.sessionId}/accept-example`, { intent: 'cooling' })).statusCode).toBe(409);
  }, 60_000);

  it('client keys cannot use the operator endpoints (403)', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    for (const [method, url, payload] of [
      ['GET', '/admin/case-library/settings', undefined],
      ['PUT', '/admin/case-library/settings', { threshold: 0.9 }],
      ['DELETE', `/admin/case-library/${id}`, undefined],
      ['POST', `/admin/bad-cases/${id}/accept-example`, { intent: 'cooling' }],
    ] as const) {
      expect([method, url, (await send(a, method, url, payload, 'clientKey')).statusCode]).toEqual([method, url, 403]);
    }
  });
});
