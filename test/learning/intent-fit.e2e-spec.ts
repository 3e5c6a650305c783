import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { InjectOptions } from 'fastify';
import { JobsService } from '@arbiter/jobs';
import { createTestApp, type TestApp, type TestTenant } from '../support/test-app.js';

/** Issue 14 items 3–4: a cross-validated fit on a labelled set, its calibration, and applying it with If-Match. */

interface Metrics {
  total: number;
  inScopeAccuracy: number | null;
  outOfScopeRecall: number | null;
  clarifyRate: number;
}
interface Fit {
  id: string;
  status: string;
  labelledSet: { id: string; name: string; version: number };
  targets: { minOutOfScopeRecall: number; maxClarifyRate: number };
  configVersion: string | null;
  jobId: string | null;
  error: string | null;
  result: {
    feasible: boolean;
    proposedConfig: Record<string, unknown> & { calibration: { method: string; x: number[]; y: number[] } };
    before: Metrics;
    after: Metrics;
    crossValidated: Metrics;
    reliability: { raw: { ece: number; bins: unknown[] }; calibrated: { ece: number; bins: unknown[] } };
    configsSearched: number;
  } | null;
}
interface ErrorBody {
  code?: string;
  message: string;
  details?: { fields?: string[]; unknownIntents?: string[] };
}

const RULES = [
  {
    intent: 'power',
    semanticExamples: ['the arm does not power on', 'no power to the controller', 'the robot will not switch on', 'power light stays off'],
  },
  {
    intent: 'reset',
    semanticExamples: ['how do I reset the controller', 'reset the robot to factory settings', 'restart the arm after an error', 'clear the fault and reset'],
  },
  {
    intent: 'firmware',
    semanticExamples: ['how to upgrade the firmware', 'which firmware version is installed', 'update the controller software', 'firmware update failed'],
  },
];

const LABELLED = [
  { text: 'the controller has no power', intent: 'power' },
  { text: 'my robot does not switch on', intent: 'power' },
  { text: 'power indicator is off', intent: 'power' },
  { text: 'reset the controller please', intent: 'reset' },
  { text: 'how to restart after a fault', intent: 'reset' },
  { text: 'factory reset of the robot', intent: 'reset' },
  { text: 'upgrade the firmware of the arm', intent: 'firmware' },
  { text: 'what firmware version do I have', intent: 'firmware' },
  { text: 'the software update failed', intent: 'firmware' },
  { text: 'what is the weather in paris', intent: null },
  { text: 'tell me a joke about cats', intent: null },
  { text: 'book a table for two tonight', intent: null },
];

describe('routing fit on labelled data (e2e)', () => {
  let t: TestApp;
  let acme: TestTenant;
  let other: TestTenant;
  let setId: string;

  const send = (tenant: TestTenant, method: InjectOptions['method'], url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    t.request({
      method,
      url,
      headers: { 'x-api-key': tenant.operatorKey, ...headers },
      ...(payload !== undefined ? { payload: payload as InjectOptions['payload'] } : {}),
    });
  const upload = async (tenant: TestTenant, name: string, examples: unknown[]) => {
    const res = await send(tenant, 'POST', '/admin/intent/labelled-sets', { name, examples });
    expect(res.statusCode).toBe(201);
    return res.json<{ id: string }>().id;
  };
  const fitCount = async (tenant: TestTenant) => (await send(tenant, 'GET', '/admin/intent-config/fits?limit=100')).json<{ items: Fit[] }>().items.length;
  const decisionCount = async (tenant: TestTenant) =>
    (await send(tenant, 'GET', '/admin/intent/decisions?limit=200')).json<{ items: unknown[] }>().items.length;

  beforeAll(async () => {
    t = await createTestApp();
    acme = await t.createTenant();
    other = await t.createTenant();
    for (const tenant of [acme, other]) {
      expect((await send(tenant, 'POST', '/admin/intent-rules/bulk', { rules: RULES })).statusCode).toBe(201);
    }
    setId = await upload(acme, 'support-v1', LABELLED);
  }, 240_000);
  afterAll(async () => {
    await t?.close();
  });

  it('answers 202, the job fits with no side effects, and the proposal applies once with If-Match', async () => {
    const decisionsBefore = await decisionCount(acme);
    const res = await send(acme, 'POST', '/admin/intent-config/fit', { labelledSetId: setId, targets: { maxClarifyRate: 0.2 } });
    expect(res.statusCode).toBe(202);
    const queued = res.json<Fit>();
    expect(queued).toMatchObject({
      status: 'queued',
      labelledSet: { id: setId, name: 'support-v1', version: 1 },
      targets: { minOutOfScopeRecall: 0.5, maxClarifyRate: 0.2 },
    });
    expect(queued.jobId).not.toBeNull();

    await t.app.get(JobsService).runPending();
    const fit = (await send(acme, 'GET', `/admin/intent-config/fits/${queued.id}`)).json<Fit>();
    expect(fit.status).toBe('succeeded');
    expect(fit.configVersion).toBe('0');
    const result = fit.result!;
    expect(result.before.total).toBe(LABELLED.length);
    expect(result.crossValidated.total).toBe(LABELLED.length);
    expect(result.configsSearched).toBeGreaterThan(1000);
    // the proposal is at least as good as the current config on the set it was chosen on
    expect(result.after.inScopeAccuracy! + result.after.outOfScopeRecall!).toBeGreaterThanOrEqual(
      result.before.inScopeAccuracy! + result.before.outOfScopeRecall!,
    );
    expect(result.reliability.raw.bins).toHaveLength(10);
    expect(result.proposedConfig.calibration.method).toBe('isotonic');
    // routing a labelled set for a fit logs no decisions
    expect(await decisionCount(acme)).toBe(decisionsBefore);

    const applied = await send(acme, 'PUT', '/admin/intent-config', result.proposedConfig, { 'if-match': `"${fit.configVersion}"` });
    expect(applied.statusCode).toBe(200);
    expect(applied.json()).toMatchObject({ minTriggerThreshold: result.proposedConfig.minTriggerThreshold, calibration: result.proposedConfig.calibration });
    const again = await send(acme, 'PUT', '/admin/intent-config', result.proposedConfig, { 'if-match': `"${fit.configVersion}"` });
    expect(again.statusCode).toBe(412);
  });

  it('refuses thin sets, sets without out-of-scope examples and unknown intents with 400s naming the problem, writing nothing', async () => {
    const thin = await upload(acme, 'thin', [...LABELLED.filter((e) => e.intent !== 'firmware'), { text: 'firmware please', intent: 'firmware' }]);
    const noOos = await upload(
      acme,
      'no-oos',
      LABELLED.filter((e) => e.intent !== null),
    );
    const before = await fitCount(acme);
    const thinRes = await send(acme, 'POST', '/admin/intent-config/fit', { labelledSetId: thin });
    expect(thinRes.statusCode).toBe(400);
    expect(thinRes.json<ErrorBody>()).toMatchObject({ code: 'FIT_DATA_INSUFFICIENT' });
    expect(thinRes.json<ErrorBody>().message).toContain('at least 2 labelled examples per intent; too few for: firmware');
    const oosRes = await send(acme, 'POST', '/admin/intent-config/fit', { labelledSetId: noOos });
    expect(oosRes.statusCode).toBe(400);
    expect(oosRes.json<ErrorBody>().message).toContain('at least 1 out-of-scope example');

    const bad = await send(acme, 'POST', '/admin/intent-config/fit', { labelledSetId: 'nope', targets: { maxClarifyRate: 2, speed: 1 }, extra: true });
    expect(bad.statusCode).toBe(400);
    expect(bad.json<ErrorBody>().details?.fields).toEqual(expect.arrayContaining(['labelledSetId', 'targets.maxClarifyRate', 'targets.speed', 'extra']));

    // a rule deleted after the upload: its label is unknown now
    const rules = (await send(acme, 'GET', '/admin/intent-rules?limit=100')).json<{ items: { id: string; intent: string }[] }>().items;
    const lone = await upload(acme, 'lone', [...LABELLED]);
    const firmware = rules.find((r) => r.intent === 'firmware')!;
    expect((await send(acme, 'DELETE', `/admin/intent-rules/${firmware.id}`)).statusCode).toBe(204);
    const unknown = await send(acme, 'POST', '/admin/intent-config/fit', { labelledSetId: lone });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json<ErrorBody>()).toMatchObject({ code: 'UNKNOWN_INTENTS', details: { unknownIntents: ['firmware'] } });
    expect(await fitCount(acme)).toBe(before);
  });

  it('takes a labelled set from review labels, bad-case labels and verified cases (first source wins), ready to fit on', async () => {
    const client = (tenant: TestTenant, url: string, payload: unknown) =>
      t.request({ method: 'POST', url, headers: { 'x-api-key': tenant.clientKey }, payload: payload as InjectOptions['payload'] });
    // a useful answer → a verified AUTO case labelled with the intent the session was routed to
    const useful = (await client(acme, '/ai/chat', { message: 'the arm does not power on' })).json<{ sessionId: string }>().sessionId;
    expect((await client(acme, '/api/feedback', { sessionId: useful, feedback: 'useful' })).statusCode).toBe(200);
    // a bad case an operator labels with its correct intent
    const bad = (await client(acme, '/ai/chat', { message: 'please reboot the controller after the crash' })).json<{ sessionId: string }>().sessionId;
    expect((await client(acme, '/api/feedback', { sessionId: bad, feedback: 'not_useful' })).statusCode).toBe(200);
    const accepted = await send(acme, 'POST', `/admin/bad-cases/${bad}/accept-example`, { intent: 'reset' });
    expect(accepted.statusCode).toBe(200);

    const res = await send(acme, 'POST', '/admin/intent/labelled-sets/snapshot', { name: 'from-feedback', sources: ['bad_cases', 'case_library', 'review'] });
    expect(res.statusCode).toBe(201);
    const body = res.json<{
      set: { id: string; name: string; version: number; exampleCount: number };
      counts: Record<string, number>;
      unknownIntents: string[];
    }>();
    expect(body.set).toMatchObject({ name: 'from-feedback', version: 1, exampleCount: 2 });
    expect(body.counts).toEqual({ bad_cases: 1, case_library: 1, review: 0 });
    const examples = (await send(acme, 'GET', `/admin/intent/labelled-sets/${body.set.id}`)).json<{
      examples: { items: { text: string; intent: string | null }[] };
    }>();
    expect(examples.examples.items.map((e) => [e.text, e.intent]).sort()).toEqual([
      ['please reboot the controller after the crash', 'reset'],
      ['the arm does not power on', 'power'],
    ]);

    const bad400 = await send(acme, 'POST', '/admin/intent/labelled-sets/snapshot', { name: 'review', sources: ['gossip'] });
    expect(bad400.statusCode).toBe(400);
    expect(bad400.json<ErrorBody>().details?.fields).toEqual(expect.arrayContaining(['name', 'sources']));
    const nothing = await send(other, 'POST', '/admin/intent/labelled-sets/snapshot', { name: 'empty', sources: ['bad_cases', 'case_library', 'review'] });
    expect(nothing.statusCode).toBe(400);
    expect(nothing.json<ErrorBody>().message).toContain('no labelled message');
  });

  it('keeps tenants apart: another tenant can neither fit on nor read this tenant’s sets and fits', async () => {
    const mine = (await send(acme, 'GET', '/admin/intent-config/fits')).json<{ items: Fit[] }>().items[0]!;
    expect((await send(other, 'GET', `/admin/intent-config/fits/${mine.id}`)).statusCode).toBe(404);
    expect((await send(other, 'POST', '/admin/intent-config/fit', { labelledSetId: setId })).statusCode).toBe(404);
    expect((await send(other, 'GET', '/admin/intent-config/fits')).json<{ items: Fit[] }>().items).toEqual([]);
    expect(
      (await t.request({ method: 'POST', url: '/admin/intent-config/fit', headers: { 'x-api-key': acme.clientKey }, payload: { labelledSetId: setId } }))
        .statusCode,
    ).toBe(403);
  });
});
