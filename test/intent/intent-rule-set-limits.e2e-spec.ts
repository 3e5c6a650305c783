import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { measureDeadline } from '@arbiter/testing';
import { IntentRouterCache } from '@arbiter/intent';
import { createTestApp, type TestApp, type TestTenant } from '../support/test-app.js';

/**
 * Issue 29, finding 2: `{"patterns":["\\p{L}{0,200}z"]}` was accepted (the pattern compiles alone) but the
 * tenant's combined RE2 set then never compiled: every route of the tenant answered 500, the compile was
 * retried (on the event loop) by every request — ~10 s each with one rule of 100 such patterns — and every
 * other tenant stalled with it. Routing README "Regex rule sets".
 */
const HUGE = '\\p{L}{0,200}z';

interface ErrorBody {
  statusCode: number;
  message: string;
  details?: { fields?: string[]; issues?: { field: string; code: string; pattern?: string; message: string }[] };
}
interface RuleView {
  id: string;
  patterns: string[];
}
interface RouteBody {
  finalIntent: string | null;
  ruleId: string | null;
  routeTrace: { ruleMatch: { ruleId: string; matchType: string } | null; ruleStage?: { regex: string; reason: string } };
}

describe('intent regex rule sets: refused at write time, bounded and isolated at serve time (e2e)', () => {
  let t: TestApp;
  const op = (tenant: TestTenant) => ({ 'x-api-key': tenant.operatorKey });
  const create = (tenant: TestTenant, payload: object) => t.request({ method: 'POST', url: '/admin/intent-rules', headers: op(tenant), payload });
  const list = async (tenant: TestTenant): Promise<RuleView[]> =>
    (await t.request({ method: 'GET', url: '/admin/intent-rules', headers: op(tenant) })).json<{ items: RuleView[] }>().items;
  const route = (tenant: TestTenant, message: string) =>
    t.request({ method: 'POST', url: '/ai/intent/route', headers: { 'x-api-key': tenant.clientKey }, payload: { message } });
  const rulesVersion = async (tenant: TestTenant): Promise<number> =>
    Number((await t.db.pool.query<{ v: string }>('SELECT rules_version AS v FROM intent_tenant_config WHERE tenant_id = $1', [tenant.id])).rows[0]?.v ?? 0);

  beforeAll(async () => {
    t = await createTestApp();
    // Starts the check thread (from the TypeScript sources in tests: ~0.5 s), so the timings below are the checks'.
    expect((await create(await t.createTenant(), { intent: 'warm', patterns: ['warm\\s*up'] })).statusCode).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('refuses the issue rule with 400 naming patterns[0]; nothing is written', async () => {
    const tenant = await t.createTenant();
    const started = performance.now();
    const res = await create(tenant, { intent: 'q200', patterns: [HUGE] });
    const refusedMs = performance.now() - started;
    expect(res.statusCode).toBe(400);
    const body = res.json<ErrorBody>();
    expect(body.details?.fields).toEqual(['patterns[0]']);
    expect(body.details?.issues?.[0]).toMatchObject({ field: 'patterns[0]', code: 'rule_set_too_large', pattern: HUGE });
    expect(body.message).toContain("the tenant's rule set would not compile");
    expect(body.message).toContain('program-size limit');
    expect(await list(tenant)).toEqual([]);
    expect(await rulesVersion(tenant)).toBe(0);
    // Logged for the closing note of the issue (before: 201, then 500 on every route).
    console.info(`refused write of the issue rule: ${refusedMs.toFixed(0)} ms`);
  });

  it('refuses a bulk import and an edit the same way (rules[i].patterns[j], patterns[j]); nothing is written', async () => {
    const tenant = await t.createTenant();
    const bulk = await t.request({
      method: 'POST',
      url: '/admin/intent-rules/bulk',
      headers: op(tenant),
      payload: {
        rules: [
          { intent: 'order', patterns: ['order\\s*#?(\\d{4,})'] },
          { intent: 'q200', keywords: ['q'], patterns: ['fine', HUGE] },
        ],
      },
    });
    expect(bulk.statusCode).toBe(400);
    expect(bulk.json<ErrorBody>().details?.fields).toEqual(['rules[1].patterns[1]']);
    expect(await list(tenant)).toEqual([]);

    const created = await create(tenant, { intent: 'order', patterns: ['order\\s*#?(\\d{4,})'] });
    expect(created.statusCode).toBe(201);
    const rule = created.json<RuleView>();
    const edit = await t.request({
      method: 'PATCH',
      url: `/admin/intent-rules/${rule.id}`,
      headers: op(tenant),
      payload: { patterns: ['order\\s*#?(\\d{4,})', HUGE] },
    });
    expect(edit.statusCode).toBe(400);
    expect(edit.json<ErrorBody>().details?.fields).toEqual(['patterns[1]']);
    expect((await list(tenant)).map((r) => r.patterns)).toEqual([['order\\s*#?(\\d{4,})']]);
    expect(await rulesVersion(tenant)).toBe(1);
  });

  it('refuses a draft rule set of a replay the same way (rules[i].patterns[j]); no replay is recorded', async () => {
    const tenant = await t.createTenant();
    const replay = (rules: object[]) =>
      t.request({ method: 'POST', url: '/admin/intent/replay', headers: op(tenant), payload: { from: new Date(Date.now() - 60_000).toISOString(), rules } });
    const huge = await replay([
      { intent: 'ok', keywords: ['fine'] },
      { intent: 'q200', patterns: [HUGE] },
    ]);
    expect(huge.statusCode).toBe(400);
    expect(huge.json<ErrorBody>().details?.fields).toEqual(['rules[1].patterns[0]']);
    expect(huge.json<ErrorBody>().message).toContain('program-size limit');
    const syntax = await replay([{ intent: 'bad', patterns: ['(unclosed'] }]);
    expect(syntax.statusCode).toBe(400);
    expect(syntax.json<ErrorBody>().details?.fields).toEqual(['rules[0].patterns[0]']);
    const replays = await t.request({ method: 'GET', url: '/admin/intent/replays', headers: op(tenant) });
    expect(replays.json<{ items: unknown[] }>().items).toEqual([]);
    // A draft that fits is accepted (an empty window: recorded as finished at once).
    expect((await replay([{ intent: 'order', patterns: ['order\\s*#?(\\d{4,})'] }])).statusCode).toBe(200);
  });

  it("refuses the rule that tips the tenant's whole set over the limit, though each pattern compiles alone", async () => {
    const tenant = await t.createTenant();
    const statuses: number[] = [];
    let refused: ErrorBody | undefined;
    for (let i = 0; i < 4 && refused === undefined; i++) {
      const res = await create(tenant, { intent: `medium${i}`, patterns: [`\\p{L}{0,60}z${i}`] });
      statuses.push(res.statusCode);
      if (res.statusCode === 400) refused = res.json<ErrorBody>();
    }
    expect(statuses[0]).toBe(201);
    expect(statuses.at(-1)).toBe(400);
    expect(refused?.details?.fields).toEqual(['patterns[0]']);
    expect(refused?.message).toContain("the tenant's rule set would not compile");
    expect(await list(tenant)).toHaveLength(statuses.length - 1);
  });

  it('a rule set already broken in the database: 200 without the regex stage, checked once, another tenant unaffected', async () => {
    const broken = await t.createTenant();
    const other = await t.createTenant();
    for (const tenant of [broken, other]) {
      expect((await create(tenant, { intent: 'reset', keywords: ['reset'] })).statusCode).toBe(201);
    }
    const order = await create(broken, { intent: 'order', keywords: ['order'], patterns: ['order\\s*#?(\\d{4,})'] });
    expect(order.statusCode).toBe(201);
    // Pre-existing data (written before the write-time check): one rule of 100 patterns like the issue's.
    const patterns = Array.from({ length: 100 }, (_, i) => `${HUGE}${i}`);
    await t.db.pool.query('UPDATE intent_rule SET patterns = $3::jsonb WHERE tenant_id = $1 AND id = $2', [
      broken.id,
      order.json<RuleView>().id,
      JSON.stringify(patterns),
    ]);
    await t.db.pool.query('UPDATE intent_tenant_config SET rules_version = rules_version + 1 WHERE tenant_id = $1', [broken.id]);

    // The other tenant's router is compiled and warm; its idle latency is the yardstick.
    for (let i = 0; i < 20; i++) expect((await route(other, 'please reset')).statusCode).toBe(200);
    const idle: number[] = [];
    for (let i = 0; i < 100; i++) idle.push((await measureDeadline(0, () => route(other, 'please reset'))).elapsedMs);
    idle.sort((a, b) => a - b);
    const idleMedian = idle[50]!;
    // Generous: 50x its own idle latency, at least 1 s — the old failure stalled it for the whole compile,
    // 10–20 s per request of the broken tenant, while CPU contention from parallel suites and other processes on
    // 2 cores was seen to reach ~0.3 s. The server and this test share one event loop (inject), so a stall shows
    // in the elapsed time of each route, not in measureDeadline's lateness (its reference timer stalls with it);
    // the lateness is logged as well.
    const bound = Math.max(1_000, 50 * idleMedian);

    const cache = t.app.get(IntentRouterCache);
    const checksBefore = cache.ruleSets.checksRun(broken.id, 'serve');
    // No route of this tenant before: its first one compiles the broken set stored above.
    const brokenStarted = performance.now();
    const brokenFirst = route(broken, 'please reset');
    let settled = false;
    void brokenFirst.finally(() => {
      settled = true;
    });
    const lateness: number[] = [];
    const elapsed: number[] = [];
    while (!settled || elapsed.length < 10) {
      const m = await measureDeadline(bound, async () => expect((await route(other, 'please reset')).statusCode).toBe(200));
      expect(m.error).toBeUndefined();
      lateness.push(m.lateByMs);
      elapsed.push(m.elapsedMs);
    }
    const first = await brokenFirst;
    expect(first.statusCode).toBe(200);
    const brokenFirstMs = performance.now() - brokenStarted;

    // Degraded, not failed: keywords route, the trace says the regex stage is off and why.
    const bodies: RouteBody[] = [first.json<RouteBody>()];
    const brokenLater: number[] = [];
    for (let i = 0; i < 10; i++) {
      const started = performance.now();
      const res = await route(broken, i % 2 === 0 ? 'please reset' : 'order #12345');
      brokenLater.push(performance.now() - started);
      expect(res.statusCode).toBe(200);
      bodies.push(res.json<RouteBody>());
    }
    for (const b of bodies) {
      expect(b.routeTrace.ruleStage?.regex).toBe('disabled');
      expect(b.routeTrace.ruleStage?.reason).toContain('program-size limit');
    }
    expect(bodies[0]!.finalIntent).toBe('reset');
    // The `order` keyword still routes; only its patterns are off.
    expect(bodies[2]!.routeTrace.ruleMatch).toMatchObject({ matchType: 'keyword' });
    // The broken set was compiled (refused) once, not once per request.
    expect(cache.ruleSets.checksRun(broken.id, 'serve') - checksBefore).toBe(1);
    // The other tenant's routes answered within the bound all along.
    expect(Math.max(...elapsed)).toBeLessThanOrEqual(bound);
    console.info(
      `other tenant: idle median ${idleMedian.toFixed(1)} ms, idle max ${idle.at(-1)!.toFixed(1)} ms, bound ${bound.toFixed(0)} ms; ${elapsed.length} routes while the broken tenant compiled: max ${Math.max(...elapsed).toFixed(1)} ms, max lateness ${Math.max(...lateness).toFixed(1)} ms; broken tenant: first route ${brokenFirstMs.toFixed(0)} ms, next 10 max ${Math.max(...brokenLater).toFixed(1)} ms`,
    );

    // Writing to the broken tenant names the stored rule that breaks its set.
    const res = await create(broken, { intent: 'x', patterns: ['ok'] });
    expect(res.statusCode).toBe(400);
    const issue = res.json<ErrorBody>().details?.issues?.[0];
    expect(issue).toMatchObject({ code: 'rule_set_too_large', field: `rules[${order.json<RuleView>().id}].patterns[0]` });
    // The fix path stays open: disabling the breaking rule is accepted, and the regex stage serves again.
    const disable = await t.request({
      method: 'PATCH',
      url: `/admin/intent-rules/${order.json<RuleView>().id}`,
      headers: op(broken),
      payload: { enabled: false },
    });
    expect(disable.statusCode).toBe(200);
    const fixed = await create(broken, { intent: 'invoice', patterns: ['invoice\\s*#?(\\d{4,})'] });
    expect(fixed.statusCode).toBe(201);
    const healed = (await route(broken, 'invoice #98765')).json<RouteBody>();
    expect(healed.routeTrace.ruleStage).toBeUndefined();
    expect(healed.routeTrace.ruleMatch).toMatchObject({ matchType: 'regex', ruleId: fixed.json<RuleView>().id });
  });
});
