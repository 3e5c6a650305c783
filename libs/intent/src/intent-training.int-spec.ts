import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { asTenantId } from '@arbiter/common';
import { createTestApp, type TestApp, type TestTenant } from '../../../test/support/test-app.js';
import { IntentRouterCache } from './intent-router.cache.js';
import { WARM_START_EPOCHS, type ClassifierTrainingData } from './routing/index.js';

interface RouteBody {
  finalIntent: string | null;
  ruleId: string | null;
  decisionReason: string;
  routeTrace: { semanticMatch: { aggregation?: string; classifierVersion?: string } };
}

const WORDS = ['apple', 'river', 'castle', 'violin', 'tiger', 'rocket', 'garden', 'pepper', 'marble', 'copper', 'falcon', 'lantern'];
const intentRule = (w: string) => ({ intent: w, semanticExamples: [`${w} please`, `i want ${w}`, `${w} ${w} now`, `tell me about the ${w}`] });

/**
 * The classifier trains on a worker thread while the API keeps routing: a rule edit routes by its rules
 * at once (the previous classifier serves the intents it knows), and the retrained classifier is swapped
 * in when the thread returns it. The training is held at a gate here, so "pending" is a fact, not a race.
 */
describe('intent classifier training off the request thread (app + database + worker thread)', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let cache: IntentRouterCache;
  let closed = false;
  const op = () => ({ 'x-api-key': tenant.operatorKey });
  const route = async (message: string): Promise<RouteBody> => {
    const res = await t.request({ method: 'POST', url: '/ai/intent/route', headers: { 'x-api-key': tenant.clientKey }, payload: { message } });
    expect(res.statusCode).toBe(200);
    return res.json<RouteBody>();
  };
  const routing = () => cache.get(asTenantId(tenant.id));

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await t.createTenant();
    cache = t.app.get(IntentRouterCache);
    const res = await t.request({ method: 'POST', url: '/admin/intent-rules/bulk', headers: op(), payload: { rules: WORDS.slice(0, 11).map(intentRule) } });
    expect(res.statusCode).toBe(201);
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    if (!closed) await t?.close();
  });

  it('serves the trained classifier of the loaded rules, labelled with their rules version', async () => {
    const first = await routing();
    await first.trained;
    expect(first.router.index.classifierState).toBe('ready');
    const body = await route('castle please');
    expect(body.finalIntent).toBe('castle');
    expect(body.routeTrace.semanticMatch).toMatchObject({ aggregation: 'classifier', classifierVersion: first.versions.rules });
  });

  it('a new rule routes by its rules while its training is pending; the retrained classifier then replaces the previous one', async () => {
    const before = await routing();
    const previousVersion = before.versions.rules;
    // Hold the next training at a gate (it reaches the worker only once released).
    const trainer = cache.trainer;
    const original = trainer.train.bind(trainer);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const train = jest.spyOn(trainer, 'train').mockImplementation(async (tenantId: string, data: ClassifierTrainingData) => {
      await gate;
      return original(tenantId, data);
    });

    const created = await t.request({
      method: 'POST',
      url: '/admin/intent-rules',
      headers: op(),
      payload: { intent: 'lantern', keywords: ['lanternfish'], semanticExamples: intentRule('lantern').semanticExamples },
    });
    expect(created.statusCode).toBe(201);
    const ruleId = created.json<{ id: string }>().id;

    // By its keyword, at once; the training of the new rule set has been handed over and has not finished.
    const byRule = await route('do you sell lanternfish');
    expect(byRule).toMatchObject({ finalIntent: 'lantern', ruleId, decisionReason: 'rule_high_confidence' });
    expect(train).toHaveBeenCalledTimes(1);
    // an edit of a few rules continues from the previous classifier instead of training from scratch
    expect(train.mock.calls[0][1].warmStart?.epochs).toBe(WARM_START_EPOCHS);
    const pending = await routing();
    expect(pending.versions.rules).not.toBe(previousVersion);
    expect(pending.router.index.classifierState).toBe('training');
    // The other intents are still served by the previous rule set's classifier (carried over).
    const known = await route('violin please');
    expect(known.finalIntent).toBe('violin');
    expect(known.routeTrace.semanticMatch).toMatchObject({ aggregation: 'classifier', classifierVersion: previousVersion });

    release();
    await pending.trained;
    expect(pending.router.index.classifierState).toBe('ready');
    const after = await route('violin please');
    expect(after.routeTrace.semanticMatch).toMatchObject({ aggregation: 'classifier', classifierVersion: pending.versions.rules });
    // The new intent by its examples alone (no keyword in the message), through the retrained classifier.
    const byExamples = await route('i want lantern');
    expect(byExamples.finalIntent).toBe('lantern');
    expect(byExamples.routeTrace.semanticMatch.classifierVersion).toBe(pending.versions.rules);
    train.mockRestore();
  });

  it('shutting down with a training in flight ends it: the app closes and the training settles', async () => {
    const trainer = cache.trainer;
    const original = trainer.train.bind(trainer);
    // A training that never ends by itself: only the shutdown stops it.
    jest.spyOn(trainer, 'train').mockImplementation((tenantId: string, data: ClassifierTrainingData) =>
      original(tenantId, {
        ...data,
        hyper: { ...data.hyper, epochs: 1e9 },
        ...(data.warmStart !== undefined ? { warmStart: { ...data.warmStart, epochs: 1e9 } } : {}),
      }),
    );
    const res = await t.request({ method: 'POST', url: '/admin/intent-rules', headers: op(), payload: { intent: 'extra', keywords: ['zzextra'] } });
    expect(res.statusCode).toBe(201);
    const inFlight = await routing();
    expect(inFlight.router.index.classifierState).toBe('training');
    expect(trainer.pending.running).toBe(1);
    closed = true;
    await t.close();
    await inFlight.trained;
    expect(trainer.pending).toEqual({ waiting: 0, running: 0 });
    expect(inFlight.router.index.classifierState).toBe('failed');
  });
});
