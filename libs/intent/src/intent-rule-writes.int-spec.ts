import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { asTenantId } from '@arbiter/common';
import { createTestApp, type TestApp, type TestTenant } from '../../../test/support/test-app.js';
import { IntentRepository, RuleSetChangedError } from './intent.repository.js';

/**
 * Issue 29 item 2: two rule writes that each fit the tenant's RE2 set but not together must not both land
 * (routing README "Regex rule sets"). Each of these patterns compiles with the set alone; the two together
 * exceed the program-size limit.
 */
const HALF_A = '\\p{L}{0,100}a';
const HALF_B = '\\p{L}{0,100}b';

interface ErrorBody {
  code: string;
  details?: { issues?: { field: string; code: string; pattern?: string }[] };
}

describe('concurrent intent rule writes are checked against each other (two app instances, one database)', () => {
  let t: TestApp;
  let second: TestApp;
  const op = (tenant: TestTenant) => ({ 'x-api-key': tenant.operatorKey });
  const createOn = (app: TestApp, tenant: TestTenant, payload: object) =>
    app.request({ method: 'POST', url: '/admin/intent-rules', headers: op(tenant), payload });
  const patternsOf = async (tenant: TestTenant): Promise<string[]> =>
    (await t.request({ method: 'GET', url: '/admin/intent-rules', headers: op(tenant) }))
      .json<{ items: { patterns: string[] }[] }>()
      .items.flatMap((r) => r.patterns);
  const route = (tenant: TestTenant, message: string) =>
    t.request({ method: 'POST', url: '/ai/intent/route', headers: { 'x-api-key': tenant.clientKey }, payload: { message } });

  /** A tenant created through `t`, once `second` knows its keys too (another instance sees a new key within a second: docs/http-edge.md). */
  const tenantOnBoth = async (): Promise<TestTenant> => {
    const tenant = await t.createTenant();
    const deadline = Date.now() + 5_000;
    while ((await second.request({ method: 'GET', url: '/admin/intent-rules', headers: op(tenant) })).statusCode !== 200) {
      if (Date.now() > deadline) throw new Error('the second instance never accepted the new tenant key');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return tenant;
  };

  beforeAll(async () => {
    t = await createTestApp();
    second = await createTestApp({}, t.db);
  });
  afterAll(async () => {
    await second?.close();
    await t?.close();
  });

  /** One write lands, the other is refused naming its pattern, and the tenant's regex stage stays on. */
  async function expectOneLanded(tenant: TestTenant, responses: { statusCode: number; json: <T>() => T }[]): Promise<void> {
    expect(responses.map((r) => r.statusCode).sort()).toEqual([201, 400]);
    const refused = responses.find((r) => r.statusCode === 400)!.json<ErrorBody>();
    expect(refused.details?.issues?.[0]).toMatchObject({ field: 'patterns[0]', code: 'rule_set_too_large' });
    const stored = await patternsOf(tenant);
    expect(stored).toHaveLength(1);
    expect([HALF_A, HALF_B]).toContain(stored[0]);
    const routed = (await route(tenant, 'hello')).json<{ routeTrace: { ruleStage?: unknown } }>();
    expect(routed.routeTrace.ruleStage).toBeUndefined();
  }

  it('two at once on one process: the second is checked with the first and refused', async () => {
    const tenant = await t.createTenant();
    const responses = await Promise.all([createOn(t, tenant, { intent: 'a', patterns: [HALF_A] }), createOn(t, tenant, { intent: 'b', patterns: [HALF_B] })]);
    await expectOneLanded(tenant, responses);
  });

  it('two at once on two processes: the write another one overtook is checked again and refused', async () => {
    const tenant = await tenantOnBoth();
    const responses = await Promise.all([
      createOn(t, tenant, { intent: 'a', patterns: [HALF_A] }),
      createOn(second, tenant, { intent: 'b', patterns: [HALF_B] }),
    ]);
    await expectOneLanded(tenant, responses);
  });

  it('an edit and a create at once: the same', async () => {
    const tenant = await tenantOnBoth();
    const rule = (await createOn(t, tenant, { intent: 'a', patterns: ['order'] })).json<{ id: string }>();
    const responses = await Promise.all([
      t.request({ method: 'PATCH', url: `/admin/intent-rules/${rule.id}`, headers: op(tenant), payload: { patterns: [HALF_A] } }),
      createOn(second, tenant, { intent: 'b', patterns: [HALF_B] }),
    ]);
    // Either may land first: the edit (200) or the create (201); the other is refused.
    expect([
      [200, 400],
      [201, 400],
    ]).toContainEqual(responses.map((r) => r.statusCode).sort());
    const stored = await patternsOf(tenant);
    expect(stored.filter((p) => p === HALF_A || p === HALF_B)).toHaveLength(1);
  });

  it('the compare-and-set: a write checked at an older rules version writes nothing', async () => {
    const tenant = await t.createTenant();
    const repository = t.app.get(IntentRepository);
    const before = await repository.rulesVersion(asTenantId(tenant.id));
    expect((await createOn(t, tenant, { intent: 'a', patterns: ['order'] })).statusCode).toBe(201);
    const fields = {
      intent: 'b',
      description: null,
      keywords: [],
      patterns: ['invoice'],
      semanticExamples: [],
      intentVector: null,
      priority: 0,
      enabled: true,
      reply: null,
      action: 'knowledge' as const,
      confidenceProfile: 'search' as const,
    };
    await expect(repository.insert(asTenantId(tenant.id), fields, null, undefined, before)).rejects.toBeInstanceOf(RuleSetChangedError);
    expect(await patternsOf(tenant)).toEqual(['order']);
  });

  it('answers 409 when other writes keep overtaking it, and writes nothing', async () => {
    const tenant = await t.createTenant();
    const repository = t.app.get(IntentRepository);
    const overtaken = jest.spyOn(repository, 'insert').mockRejectedValue(new RuleSetChangedError(tenant.id));
    try {
      const res = await createOn(t, tenant, { intent: 'a', patterns: ['order'] });
      expect(res.statusCode).toBe(409);
      expect(res.json<ErrorBody>().code).toBe('INTENT_RULE_SET_CHANGED');
      expect(overtaken).toHaveBeenCalledTimes(5);
    } finally {
      overtaken.mockRestore();
    }
    expect(await patternsOf(tenant)).toEqual([]);
  });
});
