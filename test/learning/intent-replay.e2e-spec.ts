import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { InjectOptions } from 'fastify';
import { JobsService } from '@arbiter/jobs';
import { DecisionLogWriter, IntentReplayJob } from '@arbiter/intent-learning';
import { testJobContext } from '../support/job-context.js';
import { createTestApp, type TestApp, type TestTenant } from '../support/test-app.js';

/** Issue 14 item 5: replay logged decisions under a draft rule set or a candidate config, with no side effects. */

interface Replay {
  id: string;
  status: string;
  decisions: number;
  jobId: string | null;
  report: {
    total: number;
    changed: number;
    intentChanged: number;
    clarifyChanged: number;
    transitions: { from: string | null; to: string | null; count: number }[];
    reasonTransitions: { from: string; to: string; count: number }[];
    samples: { decisionId: string; message: string; before: { intent: string | null }; after: { intent: string | null } }[];
    labelled: { total: number; accuracyBefore: number | null; accuracyAfter: number | null };
    rulesVersion?: string;
  } | null;
}
interface ErrorBody {
  message: string;
  details?: { fields?: string[] };
}

const LIVE_RULES = [
  { intent: 'power', keywords: ['power supply'], action: 'answer', reply: 'Check the fuse.' },
  { intent: 'reset', keywords: ['reset'], action: 'answer', reply: 'Hold the reset button.' },
];
const DRAFT_RULES = [
  { intent: 'reset', keywords: ['reset'], action: 'answer', reply: 'Hold the reset button.' },
  { intent: 'firmware', keywords: ['firmware'], action: 'answer', reply: 'Use the upgrade tool.' },
];
const MESSAGES = ['reset the arm', 'the power supply is broken', 'firmware upgrade please'];

describe('replay of logged decisions (e2e)', () => {
  let t: TestApp;
  let acme: TestTenant;
  let other: TestTenant;
  let from: string;
  let decisionIds: Record<string, string>;

  const send = (tenant: TestTenant, method: InjectOptions['method'], url: string, payload?: unknown) =>
    t.request({
      method,
      url,
      headers: { 'x-api-key': tenant.operatorKey },
      ...(payload !== undefined ? { payload: payload as InjectOptions['payload'] } : {}),
    });
  const decisions = async (tenant: TestTenant) =>
    (await send(tenant, 'GET', '/admin/intent/decisions?limit=100')).json<{ items: { id: string; message: string }[] }>().items;
  const replayCount = async (tenant: TestTenant) => (await send(tenant, 'GET', '/admin/intent/replays?limit=100')).json<{ items: Replay[] }>().items.length;
  const finished = async (tenant: TestTenant, id: string) => {
    await t.app.get(JobsService).runPending();
    return (await send(tenant, 'GET', `/admin/intent/replays/${id}`)).json<Replay>();
  };

  beforeAll(async () => {
    t = await createTestApp();
    acme = await t.createTenant();
    other = await t.createTenant();
    from = new Date(Date.now() - 1000).toISOString();
    expect((await send(acme, 'POST', '/admin/intent-rules/bulk', { rules: LIVE_RULES })).statusCode).toBe(201);
    for (const message of MESSAGES) {
      expect((await t.request({ method: 'POST', url: '/ai/intent/route', headers: { 'x-api-key': acme.clientKey }, payload: { message } })).statusCode).toBe(
        200,
      );
    }
    await t.app.get(DecisionLogWriter).flush();
    decisionIds = Object.fromEntries((await decisions(acme)).map((d) => [d.message, d.id]));
    expect(Object.keys(decisionIds).sort()).toEqual([...MESSAGES].sort());
    // an operator says the power message was indeed about power
    expect((await send(acme, 'PUT', `/admin/intent/decisions/${decisionIds['the power supply is broken']}/label`, { intent: 'power' })).statusCode).toBe(200);
  }, 240_000);
  afterAll(async () => {
    await t?.close();
  });

  it('reports exactly how a draft rule set changes the logged decisions, without writing any', async () => {
    const res = await send(acme, 'POST', '/admin/intent/replay', { from, rules: DRAFT_RULES });
    expect(res.statusCode).toBe(202);
    expect(res.json<Replay>()).toMatchObject({ status: 'queued', decisions: 3 });
    const done = await finished(acme, res.json<Replay>().id);
    expect(done.status).toBe('succeeded');
    const report = done.report!;
    expect(report).toMatchObject({ total: 3, changed: 2, intentChanged: 2, clarifyChanged: 0, rulesVersion: 'draft' });
    expect(report.transitions).toEqual([
      { from: null, to: 'firmware', count: 1 },
      { from: 'power', to: null, count: 1 },
    ]);
    expect(report.reasonTransitions).toEqual([
      { from: 'no_match', to: 'rule_high_confidence', count: 1 },
      { from: 'rule_high_confidence', to: 'no_match', count: 1 },
    ]);
    expect(report.samples.map((s) => [s.message, s.before.intent, s.after.intent]).sort()).toEqual([
      ['firmware upgrade please', null, 'firmware'],
      ['the power supply is broken', 'power', null],
    ]);
    expect(report.labelled).toEqual({ total: 1, accuracyBefore: 1, accuracyAfter: 0 });
    // no side effects: the live rules route as before, and no decision was logged by the replay
    await t.app.get(DecisionLogWriter).flush();
    expect(await decisions(acme)).toHaveLength(3);
  });

  it('replays chosen decisions under a candidate config; an empty window answers 200 with zero counts', async () => {
    const ids = [decisionIds['reset the arm'], decisionIds['the power supply is broken']];
    const res = await send(acme, 'POST', '/admin/intent/replay', { decisionIds: ids, config: { semanticMatcherEnabled: false } });
    expect(res.statusCode).toBe(202);
    expect((await finished(acme, res.json<Replay>().id)).report).toMatchObject({ total: 2, changed: 0, transitions: [] });

    // a draft with semantic examples: its classifier trains on the training threads, then the replay runs
    const semantic = [{ intent: 'reset', keywords: ['reset'], semanticExamples: ['restart the robot arm', 'reboot the controller', 'power cycle the robot'] }];
    const trained = await send(acme, 'POST', '/admin/intent/replay', { from, rules: semantic });
    expect(trained.statusCode).toBe(202);
    const trainedDone = await finished(acme, trained.json<Replay>().id);
    expect(trainedDone).toMatchObject({ status: 'succeeded', report: { total: 3, rulesVersion: 'draft' } });

    const empty = await send(acme, 'POST', '/admin/intent/replay', { from: '2020-01-01T00:00:00Z', to: '2020-01-02T00:00:00Z', rules: DRAFT_RULES });
    expect(empty.statusCode).toBe(200);
    expect(empty.json<Replay>()).toMatchObject({ status: 'succeeded', decisions: 0, jobId: null, report: { total: 0, changed: 0, transitions: [] } });
  });

  it('resumes after a crash from its checkpoint without counting a decision twice', async () => {
    const res = await send(acme, 'POST', '/admin/intent/replay', { from, rules: DRAFT_RULES });
    const id = res.json<Replay>().id;
    const job = t.app.get(IntentReplayJob);
    let saved: unknown = null;
    const context = (checkpoint: unknown, onProgress: (c: unknown) => void) => testJobContext(acme.id, { replayId: id }, onProgress, checkpoint);
    // the process dies right after the batch's checkpoint was saved
    await expect(
      job.run(
        context(null, (c) => {
          saved = c;
          throw new Error('killed');
        }),
      ),
    ).rejects.toThrow('killed');
    await job.run(context(saved, () => undefined));
    expect((await send(acme, 'GET', `/admin/intent/replays/${id}`)).json<Replay>().report).toMatchObject({ total: 3, changed: 2 });
  });

  it('refuses bad windows, ids and candidates with 400s naming the field, writing nothing', async () => {
    const before = await replayCount(acme);
    const cases: [unknown, string][] = [
      [{ from: 'yesterday' }, 'from'],
      [{}, 'from'],
      [{ from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' }, 'from'],
      [{ decisionIds: ['nope'] }, 'decisionIds[0]'],
      [{ decisionIds: [], from }, 'decisionIds'],
      [{ from, config: { semanticThreshold: 2 } }, 'config.semanticThreshold'],
      [{ from, rules: [{ intent: 'x' }] }, 'rules[0].rule'],
      [{ from, rules: [{ intent: 'x', keywords: ['a'], colour: 'red' }] }, 'rules[0].colour'],
      [{ from, rules: 'all of them' }, 'rules'],
      [{ from, extra: 1 }, 'extra'],
    ];
    for (const [payload, field] of cases) {
      const res = await send(acme, 'POST', '/admin/intent/replay', payload);
      expect({ field, status: res.statusCode }).toEqual({ field, status: 400 });
      expect(res.json<ErrorBody>().details?.fields).toContain(field);
    }
    expect(await replayCount(acme)).toBe(before);
  });

  it('keeps tenants apart', async () => {
    const mine = (await send(acme, 'GET', '/admin/intent/replays')).json<{ items: Replay[] }>().items[0]!;
    expect((await send(other, 'GET', `/admin/intent/replays/${mine.id}`)).statusCode).toBe(404);
    expect((await send(other, 'GET', '/admin/intent/replays')).json<{ items: Replay[] }>().items).toEqual([]);
    // another tenant's window holds none of this tenant's decisions; ids of this tenant's decisions are not its own
    const window = await send(other, 'POST', '/admin/intent/replay', { from, rules: DRAFT_RULES });
    expect(window.json<Replay>()).toMatchObject({ status: 'succeeded', decisions: 0 });
    const ids = await send(other, 'POST', '/admin/intent/replay', { decisionIds: Object.values(decisionIds) });
    expect(ids.json<Replay>()).toMatchObject({ status: 'succeeded', decisions: 0 });
    const client = await t.request({ method: 'POST', url: '/admin/intent/replay', headers: { 'x-api-key': acme.clientKey }, payload: { from } });
    expect(client.statusCode).toBe(403);
  });
});
