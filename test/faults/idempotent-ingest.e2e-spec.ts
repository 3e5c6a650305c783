import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestApp, type TestApp, type TestTenant } from '../support/test-app.js';

const BODY = {
  query: 'how do I reset the arm',
  answer: 'Hold the reset button for 5 s.',
  status: 'SUCCESS',
  references: [{ filePath: 'manuals/reset.md', score: 0.8 }],
};

/** Issue 11: a client retrying POST /api/sessions after a timeout or a crash does not create a duplicate. */
describe('faults: idempotent session ingest (e2e, Idempotency-Key)', () => {
  let t: TestApp;
  let acme: TestTenant;
  let globex: TestTenant;

  const post = (tenant: TestTenant, payload: object, key?: string) =>
    t.request({
      method: 'POST',
      url: '/api/sessions',
      headers: { 'x-api-key': tenant.clientKey, ...(key !== undefined ? { 'idempotency-key': key } : {}) },
      payload: payload as Record<string, unknown>,
    });
  const sessions = async (tenant: TestTenant) =>
    (await t.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM diagnosis_session WHERE tenant_id = $1', [tenant.id])).rows[0]!.n;

  beforeAll(async () => {
    t = await createTestApp();
    acme = await t.createTenant();
    globex = await t.createTenant();
  }, 240_000);
  afterAll(async () => {
    await t?.close();
  });

  it('the same key and body return the same session, once, also when sent concurrently and with another key order', async () => {
    const first = await post(acme, BODY, 'order-1');
    expect(first.statusCode).toBe(201);
    const id = first.json<{ id: string }>().id;
    const reordered = { status: BODY.status, references: BODY.references, answer: BODY.answer, query: BODY.query };
    const retries = await Promise.all([post(acme, BODY, 'order-1'), post(acme, reordered, 'order-1'), post(acme, BODY, ' order-1 ')]);
    for (const retry of retries) expect({ status: retry.statusCode, id: retry.json<{ id: string }>().id }).toEqual({ status: 201, id });
    const concurrent = await Promise.all(Array.from({ length: 6 }, () => post(acme, BODY, 'order-2')));
    expect(new Set(concurrent.map((r) => `${r.statusCode} ${r.json<{ id: string }>().id}`)).size).toBe(1);
    expect(await sessions(acme)).toBe(2);
  });

  it('the same key with another body → 422 IDEMPOTENCY_KEY_REUSED, nothing stored', async () => {
    const before = await sessions(acme);
    const res = await post(acme, { ...BODY, answer: 'something else' }, 'order-1');
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ statusCode: 422, code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(await sessions(acme)).toBe(before);
  });

  it('keys are per tenant; no key keeps creating sessions; an invalid key → 400', async () => {
    expect((await post(globex, BODY, 'order-1')).statusCode).toBe(201);
    expect(await sessions(globex)).toBe(1);
    await post(globex, BODY);
    await post(globex, BODY);
    expect(await sessions(globex)).toBe(3);
    const bad = await post(globex, BODY, 'x'.repeat(201));
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'INVALID_IDEMPOTENCY_KEY' });
  });
});
