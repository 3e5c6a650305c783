import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pollUntil } from '@arbiter/testing';
import { createTestApp, type TestApp, type TestTenant } from '../support/test-app.js';

interface StatusBody {
  rulesVersion: string;
  classifierVersion: string | null;
  training: { state: string; progress: number | null };
  lastTrainingMs: number | null;
  interimIntents: number;
}
interface RouteBody {
  finalIntent: string | null;
  routeTrace: { semanticMatch: { aggregation?: string; classifierVersion?: string; interimIntents?: number } };
}

/**
 * 40 intents taught by examples only, each with its own vocabulary: enough intents that one more is an edit (the
 * previous classifier is carried over), few examples so that compiling a router stays well under the 1 s bar on a
 * loaded machine.
 */
const TOPICS = Array.from({ length: 40 }, (_, i) => `topic${i}`);
const examplesOf = (topic: string): string[] =>
  Array.from({ length: 8 }, (_, j) => `${topic} question ${j % 7} about ${topic}word${j % 5} and ${topic}thing please`);

/** Settle: the classifier of the stored rules serves on `app` (generous deadline: training runs on a shared machine). */
const SETTLE_MS = 60_000;

describe('intent status and edits live at once (e2e)', () => {
  let a: TestApp;
  let b: TestApp;
  let tenant: TestTenant;
  let other: TestTenant;
  const op = (t: TestTenant = tenant) => ({ 'x-api-key': t.operatorKey });
  const status = async (app: TestApp, t: TestTenant = tenant): Promise<StatusBody> => {
    const res = await app.request({ method: 'GET', url: '/admin/intent/status', headers: op(t) });
    expect(res.statusCode).toBe(200);
    return res.json<StatusBody>();
  };
  const route = async (app: TestApp, message: string): Promise<RouteBody> => {
    const res = await app.request({ method: 'POST', url: '/ai/intent/route', headers: { 'x-api-key': tenant.clientKey }, payload: { message } });
    expect(res.statusCode).toBe(200);
    return res.json<RouteBody>();
  };
  const settled = (app: TestApp) =>
    pollUntil(
      'classifier of the stored rules serving',
      () => status(app),
      (s) => s.training.state === 'idle' && s.classifierVersion === s.rulesVersion,
      {
        deadlineMs: SETTLE_MS,
        intervalMs: 50,
      },
    );

  beforeAll(async () => {
    a = await createTestApp();
    b = await createTestApp({}, a.db);
    tenant = await a.createTenant();
    other = await a.createTenant();
    const bulk = await a.request({
      method: 'POST',
      url: '/admin/intent-rules/bulk',
      headers: op(),
      payload: { rules: TOPICS.map((t) => ({ intent: t, semanticExamples: examplesOf(t) })) },
    });
    expect(bulk.statusCode).toBe(201);
    await settled(a);
    await settled(b);
  }, 240_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('reports the versions, an idle training and the last training duration once settled', async () => {
    const s = await status(a);
    expect(s).toEqual({
      rulesVersion: expect.stringMatching(/^[1-9]\d*$/),
      classifierVersion: s.rulesVersion,
      training: { state: 'idle', progress: null },
      lastTrainingMs: expect.any(Number),
      interimIntents: 0,
    });
    expect(s.lastTrainingMs).toBeGreaterThan(0);
  });

  it('a new intent taught by examples only routes by them at once, on this replica and within 1 s on another; the status follows the training', async () => {
    const message = 'will it rain tomorrow in the mountains';
    // B has the tenant's router compiled: it learns of the write by polling the rules version
    expect((await route(b, message)).finalIntent).toBeNull();
    const before = await status(a);
    const since = performance.now();
    const created = await a.request({
      method: 'POST',
      url: '/admin/intent-rules',
      headers: op(),
      payload: { intent: 'weather', semanticExamples: ['will it rain tomorrow', 'is rain expected in the mountains', 'weather forecast for tomorrow'] },
    });
    expect(created.statusCode).toBe(201);

    // The first route after the write compiles the new router and is served before any retrained classifier can
    // arrive (its weights come back as a later event): the previous classifier for the 40 unchanged intents, the
    // interim matcher for the new one.
    const first = await route(a, message);
    expect(first.finalIntent).toBe('weather');
    expect(first.routeTrace.semanticMatch).toMatchObject({ aggregation: 'classifier', classifierVersion: before.rulesVersion, interimIntents: 1 });
    // unchanged intents keep routing meanwhile
    expect((await route(a, 'topic7 question 3 about topic7word2')).finalIntent).toBe('topic7');

    const during = await status(a);
    expect(Number(during.rulesVersion)).toBeGreaterThan(Number(before.rulesVersion));
    expect(['queued', 'training', 'idle']).toContain(during.training.state);
    if (during.training.state === 'idle') expect(during.classifierVersion).toBe(during.rulesVersion);
    else {
      expect(during.classifierVersion).toBe(before.rulesVersion);
      expect(during.interimIntents).toBe(1);
    }
    if (during.training.state === 'training') {
      expect(during.training.progress).toBeGreaterThanOrEqual(0);
      expect(during.training.progress).toBeLessThanOrEqual(1);
    } else expect(during.training.progress).toBeNull();

    // the other replica routes the new intent by its examples within 1 s of the write
    await pollUntil(
      'replica B routes the new intent',
      () => route(b, message),
      (r) => r.finalIntent === 'weather',
      { deadlineMs: 1_000, since },
    );

    const after = await settled(a);
    expect(after.value).toMatchObject({ rulesVersion: during.rulesVersion, classifierVersion: during.rulesVersion, interimIntents: 0 });
    expect(after.value.lastTrainingMs).toBeGreaterThan(0);
    const retrained = await route(a, message);
    expect(retrained.finalIntent).toBe('weather');
    expect(retrained.routeTrace.semanticMatch.classifierVersion).toBe(during.rulesVersion);
    expect(retrained.routeTrace.semanticMatch.interimIntents).toBeUndefined();
  });

  it('an edited intent is scored by its new examples until retrained', async () => {
    const message = 'my parcel has not arrived yet';
    const list = await a.request({ method: 'GET', url: '/admin/intent-rules?intent=topic3', headers: op() });
    const id = list.json<{ items: { id: string }[] }>().items[0].id;
    const before = await status(a);
    const patched = await a.request({
      method: 'PATCH',
      url: `/admin/intent-rules/${id}`,
      headers: op(),
      payload: { semanticExamples: ['my parcel has not arrived', 'where is my parcel', 'parcel delivery is late'] },
    });
    expect(patched.statusCode).toBe(200);
    const first = await route(a, message);
    expect(first.finalIntent).toBe('topic3');
    expect(first.routeTrace.semanticMatch).toMatchObject({ classifierVersion: before.rulesVersion, interimIntents: 1 });
    await settled(a);
  });

  it("each tenant sees only its own status; another tenant's writes do not move it", async () => {
    const mine = await status(a, other);
    expect(mine).toEqual({ rulesVersion: '0', classifierVersion: null, training: { state: 'idle', progress: null }, lastTrainingMs: null, interimIntents: 0 });
    const written = await a.request({ method: 'POST', url: '/admin/intent-rules', headers: op(), payload: { intent: 'another', keywords: ['anotherword'] } });
    expect(written.statusCode).toBe(201);
    expect(await status(a, other)).toEqual(mine);
    expect((await status(a)).rulesVersion).not.toBe('0');
  });

  it('refuses a client key (403) and no key (401)', async () => {
    const client = await a.request({ method: 'GET', url: '/admin/intent/status', headers: { 'x-api-key': tenant.clientKey } });
    expect(client.statusCode).toBe(403);
    const none = await a.request({ method: 'GET', url: '/admin/intent/status' });
    expect(none.statusCode).toBe(401);
  });
});
