import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DEMO_INTENT_RULES } from '@arbiter/intent';
import { createTestApp, type TestApp, type TestTenant } from '../support/test-app.js';
import { POWER_RULE, RESET_RULE } from './intent-rule-fixtures.js';

interface RuleView {
  id: string;
  intent: string;
  description: string | null;
  keywords: string[];
  patterns: string[];
  semanticExamples: string[];
  intentVector: number[] | null;
  priority: number;
  enabled: boolean;
  reply: string | null;
  action: string;
  confidenceProfile: string;
  exampleEmbeddings: { model: string; dimension: number; count: number } | null;
  createdAt: string;
  updatedAt: string;
}
interface RouteBody {
  finalIntent: string | null;
  ruleId: string | null;
  finalConfidence: number;
  decisionReason: string;
  needClarify: boolean;
  candidates: { intent: string; confidence: number }[];
  routeTrace: {
    ruleMatch: { ruleId: string; intent: string; matchType: string; matchedText: string; score: number; durationMs: number } | null;
    semanticMatch: { topCandidates: { intent: string; score: number }[]; durationMs: number; skipped?: string };
    llmJudge: { triggered: boolean; skipped?: string };
    fusion: { weights: Record<string, number>; finalConfidence: number; decisionReason: string };
  };
}
interface ErrorBody {
  statusCode: number;
  message: string;
  details?: { fields?: string[] };
}

describe('intent rules, config and routing (e2e)', () => {
  let t: TestApp;
  let acme: TestTenant;
  let other: TestTenant;
  const op = (tenant: TestTenant) => ({ 'x-api-key': tenant.operatorKey });
  const cl = (tenant: TestTenant) => ({ 'x-api-key': tenant.clientKey });
  const create = (tenant: TestTenant, payload: object) => t.request({ method: 'POST', url: '/admin/intent-rules', headers: op(tenant), payload });
  const route = (tenant: TestTenant, message: unknown) => t.request({ method: 'POST', url: '/ai/intent/route', headers: cl(tenant), payload: { message } });
  const routeBody = async (tenant: TestTenant, message: string): Promise<RouteBody> => {
    const res = await route(tenant, message);
    expect(res.statusCode).toBe(200);
    return res.json<RouteBody>();
  };
  let reset: RuleView;
  let power: RuleView;

  beforeAll(async () => {
    t = await createTestApp();
    acme = await t.createTenant();
    other = await t.createTenant();
    const r1 = await create(acme, RESET_RULE);
    expect(r1.statusCode).toBe(201);
    reset = r1.json<RuleView>();
    const r2 = await create(acme, POWER_RULE);
    expect(r2.statusCode).toBe(201);
    power = r2.json<RuleView>();
  }, 180_000);
  afterAll(async () => {
    await t?.close();
  });

  describe('POST /admin/intent-rules', () => {
    it('creates a rule with defaults and embeds its examples once, with the provider id', async () => {
      expect(reset).toMatchObject({
        intent: 'reset',
        description: 'Resetting the arm',
        keywords: ['复位', 'reset'],
        priority: 0,
        enabled: true,
        action: 'knowledge',
        confidenceProfile: 'search',
        reply: null,
        intentVector: null,
        exampleEmbeddings: { model: 'local:hash-v2:384', dimension: 384, count: 5 },
      });
      const rows = await t.db.pool.query<{ embedding_model: string; example_count: number; bytes: number; tenant_id: string }>(
        'SELECT embedding_model, example_count, octet_length(vectors) AS bytes, tenant_id FROM intent_rule_embedding WHERE rule_id = $1',
        [reset.id],
      );
      expect(rows.rows).toEqual([{ embedding_model: 'local:hash-v2:384', example_count: 5, bytes: 5 * 384 * 4, tenant_id: acme.id }]);
    });

    it('accepts an intentVector of the provider dimension and rejects another dimension (400)', async () => {
      const ok = await create(acme, { intent: 'vec', intentVector: Array.from({ length: 384 }, (_, i) => (i === 0 ? 1 : 0)), enabled: false });
      expect(ok.statusCode).toBe(201);
      expect(ok.json<RuleView>().intentVector).toHaveLength(384);
      const bad = await create(acme, { intent: 'vec', intentVector: [0.1, 0.2, 0.3] });
      expect(bad.statusCode).toBe(400);
      expect(bad.json<ErrorBody>().details?.fields).toContain('intentVector');
      expect(bad.json<ErrorBody>().message).toMatch(/3 dimensions.*384/);
    });

    it('rejects a rule with no keyword, pattern, example or vector (400)', async () => {
      for (const payload of [
        { intent: 'empty' },
        { intent: 'empty', keywords: [], patterns: [], semanticExamples: [] },
        { intent: 'empty', intentVector: [] },
      ]) {
        const res = await create(acme, payload);
        expect(res.statusCode).toBe(400);
        expect(res.json<ErrorBody>().details?.fields).toContain('rule');
      }
    });

    it('rejects an invalid regex with 400 naming the pattern', async () => {
      for (const pattern of ['([a-z', '(a)\\1', '(?=lookahead)']) {
        const res = await create(acme, { intent: 'bad-regex', keywords: ['x'], patterns: ['ok', pattern] });
        expect(res.statusCode).toBe(400);
        const body = res.json<ErrorBody>();
        expect(body.details?.fields).toContain('patterns[1]');
        expect(body.message).toContain(JSON.stringify(pattern));
      }
    });

    it('validates fields, limits and unknown properties (400 naming them)', async () => {
      const cases: [object, string][] = [
        [{ keywords: ['x'] }, 'intent'],
        [{ intent: '   ', keywords: ['x'] }, 'intent'],
        [{ intent: 'x'.repeat(101), keywords: ['x'] }, 'intent'],
        [{ intent: 'a', keywords: Array.from({ length: 201 }, (_, i) => `k${i}`) }, 'keywords'],
        [{ intent: 'a', keywords: ['k'.repeat(201)] }, 'keywords'],
        [{ intent: 'a', keywords: [''] }, 'keywords'],
        [{ intent: 'a', patterns: Array.from({ length: 101 }, () => 'p') }, 'patterns'],
        [{ intent: 'a', patterns: ['p'.repeat(501)] }, 'patterns'],
        [{ intent: 'a', semanticExamples: ['  '] }, 'semanticExamples'],
        [{ intent: 'a', semanticExamples: ['e'.repeat(1001)] }, 'semanticExamples'],
        [{ intent: 'a', intentVector: ['x'] }, 'intentVector'],
        [{ intent: 'a', keywords: ['x'], action: 'escalate' }, 'action'],
        [{ intent: 'a', keywords: ['x'], confidenceProfile: 'vibes' }, 'confidenceProfile'],
        [{ intent: 'a', keywords: ['x'], priority: 1.5 }, 'priority'],
        [{ intent: 'a', keywords: ['x'], enabled: 'yes' }, 'enabled'],
        [{ intent: 'a', keywords: ['x'], tenantId: other.id }, 'tenantId'],
      ];
      for (const [payload, field] of cases) {
        const res = await create(acme, payload);
        expect({ field, status: res.statusCode }).toEqual({ field, status: 400 });
        expect(res.json<ErrorBody>().details?.fields).toContain(field);
      }
    });
  });

  describe('POST /admin/intent-rules/bulk', () => {
    const rulesVersion = async (tenant: TestTenant) =>
      Number((await t.db.pool.query<{ v: string }>('SELECT rules_version AS v FROM intent_tenant_config WHERE tenant_id = $1', [tenant.id])).rows[0]?.v ?? 0);

    it('creates every rule in one transaction with one version bump, and routing uses them', async () => {
      const tenant = await t.createTenant();
      const rules = [
        { intent: 'refund', keywords: ['退款', 'refund'] },
        { intent: 'shipping', semanticExamples: ['when will my order ship', '订单什么时候发货'] },
        { intent: 'invoice', patterns: ['发票|invoice'] },
      ];
      const res = await t.request({ method: 'POST', url: '/admin/intent-rules/bulk', headers: op(tenant), payload: { rules } });
      expect(res.statusCode).toBe(201);
      expect(res.json<RuleView[]>().map((r) => r.intent)).toEqual(['refund', 'shipping', 'invoice']);
      expect(await rulesVersion(tenant)).toBe(1);
      expect((await routeBody(tenant, '我要退款')).finalIntent).toBe('refund');
      expect((await routeBody(tenant, '能开发票吗')).finalIntent).toBe('invoice');
      // Another tenant sees none of them.
      expect(
        (await t.request({ method: 'GET', url: '/admin/intent-rules', headers: op(other) })).json<{ items: RuleView[] }>().items.map((r) => r.intent),
      ).not.toContain('refund');
    });

    it('creates nothing when one rule is invalid (400 naming rules[i].field)', async () => {
      const tenant = await t.createTenant();
      const res = await t.request({
        method: 'POST',
        url: '/admin/intent-rules/bulk',
        headers: op(tenant),
        payload: { rules: [{ intent: 'ok', keywords: ['fine'] }, { intent: 'bad', patterns: ['(unclosed'] }, { intent: 'empty' }] },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json<ErrorBody>().details?.fields).toEqual(expect.arrayContaining(['rules[1].patterns[0]']));
      expect((await t.db.pool.query('SELECT 1 FROM intent_rule WHERE tenant_id = $1', [tenant.id])).rowCount).toBe(0);
      expect(await rulesVersion(tenant)).toBe(0);
      for (const payload of [{ rules: [] }, {}, { rules: [{ intent: 'x', keywords: ['y'], nope: 1 }] }]) {
        expect((await t.request({ method: 'POST', url: '/admin/intent-rules/bulk', headers: op(tenant), payload })).statusCode).toBe(400);
      }
      expect(
        (await t.request({ method: 'POST', url: '/admin/intent-rules/bulk', headers: cl(tenant), payload: { rules: [{ intent: 'x', keywords: ['y'] }] } }))
          .statusCode,
      ).toBe(403);
    });
  });

  describe('GET /admin/intent-rules', () => {
    it('pages with an opaque cursor, newest first, without overlap', async () => {
      const tenant = await t.createTenant();
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await create(tenant, { intent: `i${i}`, keywords: [`kw${i}`] })).json<RuleView>().id);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const url: string = `/admin/intent-rules?limit=2${cursor !== null ? `&cursor=${cursor}` : ''}`;
        const res = await t.request({ method: 'GET', url, headers: op(tenant) });
        expect(res.statusCode).toBe(200);
        const page = res.json<{ items: RuleView[]; nextCursor: string | null }>();
        expect(page.items.length).toBeLessThanOrEqual(2);
        seen.push(...page.items.map((r) => r.id));
        cursor = page.nextCursor;
      } while (cursor !== null);
      expect(seen).toEqual([...ids].reverse());
      const filtered = await t.request({ method: 'GET', url: '/admin/intent-rules?intent=i3', headers: op(tenant) });
      expect(filtered.json<{ items: RuleView[] }>().items.map((r) => r.id)).toEqual([ids[3]]);
    });

    it('lists only the caller tenant rules', async () => {
      const mine = await t.request({ method: 'GET', url: '/admin/intent-rules?limit=200', headers: op(acme) });
      expect(mine.json<{ items: RuleView[] }>().items.map((r) => r.id)).toEqual(expect.arrayContaining([reset.id, power.id]));
      const theirs = await t.request({ method: 'GET', url: '/admin/intent-rules', headers: op(other) });
      expect(theirs.json<{ items: RuleView[] }>().items).toEqual([]);
    });

    it('rejects a malformed cursor or limit (400)', async () => {
      for (const q of ['cursor=not-a-cursor', 'limit=0', 'limit=201', 'limit=abc', 'unknown=1']) {
        expect((await t.request({ method: 'GET', url: `/admin/intent-rules?${q}`, headers: op(acme) })).statusCode).toBe(400);
      }
    });
  });

  describe('GET/PATCH/DELETE /admin/intent-rules/:id', () => {
    it('gets a rule; another tenant gets 404; a non-uuid id is 400', async () => {
      const res = await t.request({ method: 'GET', url: `/admin/intent-rules/${reset.id}`, headers: op(acme) });
      expect(res.statusCode).toBe(200);
      expect(res.json<RuleView>()).toMatchObject({ id: reset.id, intent: 'reset', exampleEmbeddings: { count: 5 } });
      expect((await t.request({ method: 'GET', url: `/admin/intent-rules/${reset.id}`, headers: op(other) })).statusCode).toBe(404);
      expect((await t.request({ method: 'GET', url: '/admin/intent-rules/00000000-0000-4000-8000-000000000000', headers: op(acme) })).statusCode).toBe(404);
      expect((await t.request({ method: 'GET', url: '/admin/intent-rules/nope', headers: op(acme) })).statusCode).toBe(400);
    });

    it('patches a rule, re-validates it as a whole, re-embeds changed examples, and routing uses it at once', async () => {
      const rule = (await create(acme, { intent: 'calibration', keywords: ['calibrate'], semanticExamples: ['zero point calibration'] })).json<RuleView>();
      expect((await routeBody(acme, 'please calibrate joint 2')).finalIntent).toBe('calibration');
      const patched = await t.request({
        method: 'PATCH',
        url: `/admin/intent-rules/${rule.id}`,
        headers: op(acme),
        payload: {
          keywords: ['零点标定'],
          semanticExamples: ['零点怎么标定', 'zero point calibration steps'],
          priority: 5,
          reply: 'see manual',
          action: 'answer',
        },
      });
      expect(patched.statusCode).toBe(200);
      expect(patched.json<RuleView>()).toMatchObject({
        keywords: ['零点标定'],
        priority: 5,
        reply: 'see manual',
        action: 'answer',
        exampleEmbeddings: { count: 2 },
      });
      expect((await routeBody(acme, 'please calibrate joint 2')).routeTrace.ruleMatch).toBeNull();
      const hit = await routeBody(acme, '请问零点标定怎么做');
      expect(hit).toMatchObject({ finalIntent: 'calibration', ruleId: rule.id, decisionReason: 'rule_high_confidence' });

      const cleared = await t.request({ method: 'PATCH', url: `/admin/intent-rules/${rule.id}`, headers: op(acme), payload: { reply: null } });
      expect(cleared.json<RuleView>().reply).toBeNull();
      const emptied = await t.request({
        method: 'PATCH',
        url: `/admin/intent-rules/${rule.id}`,
        headers: op(acme),
        payload: { keywords: [], semanticExamples: [] },
      });
      expect(emptied.statusCode).toBe(400);
      expect(emptied.json<ErrorBody>().details?.fields).toContain('rule');
      const badRegex = await t.request({ method: 'PATCH', url: `/admin/intent-rules/${rule.id}`, headers: op(acme), payload: { patterns: ['(unclosed'] } });
      expect(badRegex.statusCode).toBe(400);
      expect(badRegex.json<ErrorBody>().message).toContain('"(unclosed"');
      const badField = await t.request({ method: 'PATCH', url: `/admin/intent-rules/${rule.id}`, headers: op(acme), payload: { priority: 'high' } });
      expect(badField.statusCode).toBe(400);
      expect((await t.request({ method: 'PATCH', url: `/admin/intent-rules/${rule.id}`, headers: op(other), payload: { priority: 1 } })).statusCode).toBe(404);
      const after = await t.request({ method: 'GET', url: `/admin/intent-rules/${rule.id}`, headers: op(acme) });
      expect(after.json<RuleView>()).toMatchObject({ keywords: ['零点标定'], priority: 5 });
    });

    it('disabling a rule removes it from routing', async () => {
      const rule = (await create(acme, { intent: 'toggle', keywords: ['toggleword'] })).json<RuleView>();
      expect((await routeBody(acme, 'toggleword now')).finalIntent).toBe('toggle');
      await t.request({ method: 'PATCH', url: `/admin/intent-rules/${rule.id}`, headers: op(acme), payload: { enabled: false } });
      expect((await routeBody(acme, 'toggleword now')).routeTrace.ruleMatch).toBeNull();
    });

    it('deletes a rule (204); another tenant cannot (404) and routing forgets it', async () => {
      const rule = (await create(acme, { intent: 'doomed', keywords: ['doomedword'], semanticExamples: ['a doomed example'] })).json<RuleView>();
      expect((await routeBody(acme, 'doomedword')).finalIntent).toBe('doomed');
      expect((await t.request({ method: 'DELETE', url: `/admin/intent-rules/${rule.id}`, headers: op(other) })).statusCode).toBe(404);
      expect((await t.request({ method: 'GET', url: `/admin/intent-rules/${rule.id}`, headers: op(acme) })).statusCode).toBe(200);
      expect((await t.request({ method: 'DELETE', url: `/admin/intent-rules/${rule.id}`, headers: op(acme) })).statusCode).toBe(204);
      expect((await t.request({ method: 'GET', url: `/admin/intent-rules/${rule.id}`, headers: op(acme) })).statusCode).toBe(404);
      expect((await t.request({ method: 'DELETE', url: `/admin/intent-rules/${rule.id}`, headers: op(acme) })).statusCode).toBe(404);
      expect((await t.request({ method: 'DELETE', url: '/admin/intent-rules/xyz', headers: op(acme) })).statusCode).toBe(400);
      expect((await t.db.pool.query('SELECT 1 FROM intent_rule_embedding WHERE rule_id = $1', [rule.id])).rowCount).toBe(0);
      expect((await routeBody(acme, 'doomedword')).finalIntent).not.toBe('doomed');
    });
  });

  describe('GET/PUT /admin/intent-config', () => {
    it('returns the defaults, merges partial overrides and returns the effective config', async () => {
      const tenant = await t.createTenant();
      const initial = await t.request({ method: 'GET', url: '/admin/intent-config', headers: op(tenant) });
      expect(initial.statusCode).toBe(200);
      expect(initial.json()).toMatchObject({
        weights: { rule: 0.5, semantic: 0.3, llm: 0.2 },
        semanticThreshold: 0.7,
        conflictThreshold: 0.2,
        grayZoneThreshold: 0.6,
        minTriggerThreshold: 0.3,
        clarifyThreshold: 0.4,
        multiIntentThreshold: 0.15,
        llmJudgeEnabled: true,
        semanticMatcherEnabled: true,
        semanticMatcherTimeoutMs: 100,
        llmJudgeTimeoutMs: 2000,
        semanticTopK: 3,
      });
      const put1 = await t.request({
        method: 'PUT',
        url: '/admin/intent-config',
        headers: op(tenant),
        payload: { semanticThreshold: 0.8, weights: { llm: 0 } },
      });
      expect(put1.statusCode).toBe(200);
      expect(put1.json()).toMatchObject({ semanticThreshold: 0.8, weights: { rule: 0.5, semantic: 0.3, llm: 0 } });
      const put2 = await t.request({
        method: 'PUT',
        url: '/admin/intent-config',
        headers: op(tenant),
        payload: { clarifyThreshold: 0.5, weights: { rule: 0.7 }, semanticAggregation: 'max' },
      });
      expect(put2.json()).toMatchObject({
        semanticThreshold: 0.8,
        clarifyThreshold: 0.5,
        semanticAggregation: 'max',
        weights: { rule: 0.7, semantic: 0.3, llm: 0 },
      });
      expect((await t.request({ method: 'GET', url: '/admin/intent-config', headers: op(tenant) })).json()).toEqual(put2.json());
      // Another tenant still sees the defaults.
      expect((await t.request({ method: 'GET', url: '/admin/intent-config', headers: op(other) })).json()).toMatchObject({ semanticThreshold: 0.7 });
    });

    it('rejects unknown keys, out-of-range values, bad types and zero weights (400 naming the field)', async () => {
      // A stored override first: a rejected request must leave it as it was (no LLM here, so the judge's timeout routes nothing).
      expect((await t.request({ method: 'PUT', url: '/admin/intent-config', headers: op(acme), payload: { llmJudgeTimeoutMs: 2_500 } })).statusCode).toBe(200);
      const cases: [unknown, string][] = [
        [{ semanticTreshold: 0.5 }, 'semanticTreshold'],
        [{ weights: { rule: 0.5, bonus: 1 } }, 'weights.bonus'],
        [{ semanticThreshold: 1.5 }, 'semanticThreshold'],
        [{ clarifyThreshold: -0.1 }, 'clarifyThreshold'],
        [{ weights: { rule: -1 } }, 'weights.rule'],
        [{ weights: { rule: 0, semantic: 0, llm: 0 } }, 'weights'],
        [{ llmJudgeEnabled: 'yes' }, 'llmJudgeEnabled'],
        [{ semanticTopK: 0 }, 'semanticTopK'],
        [{ llmJudgeTimeoutMs: 1.5 }, 'llmJudgeTimeoutMs'],
        [{ semanticAggregation: 'median' }, 'semanticAggregation'],
        [[1, 2], ''],
      ];
      for (const [payload, field] of cases) {
        const res = await t.request({ method: 'PUT', url: '/admin/intent-config', headers: op(acme), payload: payload as object });
        expect({ field, status: res.statusCode }).toEqual({ field, status: 400 });
        expect(res.json<ErrorBody>().details?.fields).toContain(field);
      }
      expect((await t.request({ method: 'GET', url: '/admin/intent-config', headers: op(acme) })).json()).toMatchObject({
        semanticThreshold: 0.7,
        weights: { rule: 0.5, semantic: 0.3, llm: 0.2 },
        llmJudgeTimeoutMs: 2_500,
      });
    });

    it('versions the config: ETag on GET and PUT, If-Match applies only to that version (412 otherwise, nothing written)', async () => {
      const tenant = await t.createTenant();
      const get0 = await t.request({ method: 'GET', url: '/admin/intent-config', headers: op(tenant) });
      expect(get0.headers.etag).toBe('"0"');
      const put1 = await t.request({
        method: 'PUT',
        url: '/admin/intent-config',
        headers: { ...op(tenant), 'if-match': '"0"' },
        payload: { semanticThreshold: 0.8 },
      });
      expect(put1.statusCode).toBe(200);
      expect(put1.headers.etag).toBe('"1"');
      const stale = await t.request({
        method: 'PUT',
        url: '/admin/intent-config',
        headers: { ...op(tenant), 'if-match': '"0"' },
        payload: { semanticThreshold: 0.9 },
      });
      expect(stale.statusCode).toBe(412);
      expect(stale.json<ErrorBody>()).toMatchObject({ code: 'INTENT_CONFIG_VERSION_MISMATCH' });
      expect(stale.json<ErrorBody>().message).toContain('now 1');
      const bad = await t.request({
        method: 'PUT',
        url: '/admin/intent-config',
        headers: { ...op(tenant), 'if-match': 'yesterday' },
        payload: { semanticThreshold: 0.9 },
      });
      expect(bad.statusCode).toBe(400);
      expect(bad.json<ErrorBody>().message).toContain('If-Match');
      const get1 = await t.request({ method: 'GET', url: '/admin/intent-config', headers: op(tenant) });
      expect(get1.headers.etag).toBe('"1"');
      expect(get1.json()).toMatchObject({ semanticThreshold: 0.8 });
      // another tenant's version is its own
      expect((await t.request({ method: 'GET', url: '/admin/intent-config', headers: op(other) })).headers.etag).not.toBe('"1"');
    });

    it('keeps every one of 5 concurrent partial PUTs (no lost update without If-Match)', async () => {
      const tenant = await t.createTenant();
      const patches = [{ semanticThreshold: 0.81 }, { clarifyThreshold: 0.45 }, { semanticTopK: 4 }, { llmJudgeEnabled: false }, { weights: { rule: 0.6 } }];
      const results = await Promise.all(patches.map((payload) => t.request({ method: 'PUT', url: '/admin/intent-config', headers: op(tenant), payload })));
      expect(results.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200]);
      const got = await t.request({ method: 'GET', url: '/admin/intent-config', headers: op(tenant) });
      expect(got.headers.etag).toBe('"5"');
      expect(got.json()).toMatchObject({ semanticThreshold: 0.81, clarifyThreshold: 0.45, semanticTopK: 4, llmJudgeEnabled: false, weights: { rule: 0.6 } });
    });

    it('takes a calibration map: finalConfidence becomes the calibrated probability, the trace keeps the fused one', async () => {
      const tenant = await t.createTenant();
      await create(tenant, POWER_RULE);
      const before = await routeBody(tenant, 'my power supply is broken');
      expect(before.finalIntent).not.toBeNull();
      const calibration = { method: 'isotonic', x: [0, 1], y: [0, 0.5], samples: 20 };
      const put = await t.request({ method: 'PUT', url: '/admin/intent-config', headers: op(tenant), payload: { calibration } });
      expect(put.statusCode).toBe(200);
      expect(put.json()).toMatchObject({ calibration });
      const after = await routeBody(tenant, 'my power supply is broken');
      expect(after.finalIntent).toBe(before.finalIntent);
      expect(after.finalConfidence).toBeCloseTo(before.finalConfidence / 2, 3);
      expect((after.routeTrace.fusion as { rawConfidence?: number }).rawConfidence).toBeCloseTo(before.finalConfidence, 6);
      const invalid = await t.request({
        method: 'PUT',
        url: '/admin/intent-config',
        headers: op(tenant),
        payload: { calibration: { method: 'isotonic', x: [0.5, 0.1], y: [0, 1] } },
      });
      expect(invalid.statusCode).toBe(400);
      expect(invalid.json<ErrorBody>().details?.fields).toContain('calibration');
    });

    it('applies the config to routing (semantic matcher disabled → skipped)', async () => {
      const tenant = await t.createTenant();
      await create(tenant, POWER_RULE);
      expect((await routeBody(tenant, 'the arm does not power on at all')).routeTrace.semanticMatch.skipped).toBeUndefined();
      await t.request({ method: 'PUT', url: '/admin/intent-config', headers: op(tenant), payload: { semanticMatcherEnabled: false } });
      expect((await routeBody(tenant, 'the arm does not power on at all')).routeTrace.semanticMatch.skipped).toBe('disabled');
    });
  });

  describe('POST /ai/intent/route', () => {
    it('routes a keyword hit by rule (rule_high_confidence) with the full trace', async () => {
      const body = await routeBody(acme, '机械臂需要复位');
      expect(body).toMatchObject({ finalIntent: 'reset', ruleId: reset.id, decisionReason: 'rule_high_confidence', needClarify: false });
      expect(body.routeTrace.ruleMatch).toMatchObject({ ruleId: reset.id, intent: 'reset', matchType: 'keyword', matchedText: '复位', score: 1 });
      expect(body.routeTrace.fusion).toMatchObject({ weights: { rule: 0.5, semantic: 0.3, llm: 0.2 }, decisionReason: 'rule_high_confidence' });
      expect(body.routeTrace.llmJudge.triggered).toBe(false);
      expect(body.finalConfidence).toBeGreaterThan(0);
      expect(body.finalConfidence).toBeLessThanOrEqual(1);
    });

    it('routes a regex hit', async () => {
      const body = await routeBody(acme, '按一下重置按钮');
      expect(body.routeTrace.ruleMatch).toMatchObject({ intent: 'reset', matchType: 'regex', matchedText: '重置按钮' });
    });

    it('routes by semantics when no rule matches', async () => {
      const body = await routeBody(acme, 'the arm will not power on');
      expect(body.routeTrace.ruleMatch).toBeNull();
      expect(body.routeTrace.semanticMatch.topCandidates[0]?.intent).toBe('power');
      expect(body.finalIntent).toBe('power');
      expect(['semantic_override', 'fusion_fallback']).toContain(body.decisionReason);
    });

    it('returns no_match for an unrelated message', async () => {
      const body = await routeBody(acme, 'zzqx vvbn');
      expect(body).toMatchObject({ finalIntent: null, ruleId: null, decisionReason: 'no_match' });
    });

    it('never matches another tenant rules', async () => {
      const body = await routeBody(other, '机械臂需要复位 reset the robot arm, power supply');
      expect(body).toMatchObject({ finalIntent: null, decisionReason: 'no_match' });
      expect(body.routeTrace.ruleMatch).toBeNull();
      expect(body.routeTrace.semanticMatch.skipped).toBe('no_examples_or_vectors');
    });

    it('rejects empty, whitespace-only, over-long and missing messages (400)', async () => {
      for (const message of ['', '   ', '\n\t', 'x'.repeat(4_001), 42, null]) {
        const res = await route(acme, message);
        expect(res.statusCode).toBe(400);
        expect(res.json<ErrorBody>().details?.fields).toContain('message');
      }
      expect((await t.request({ method: 'POST', url: '/ai/intent/route', headers: cl(acme), payload: {} })).statusCode).toBe(400);
      expect((await t.request({ method: 'POST', url: '/ai/intent/route', headers: cl(acme), payload: { message: 'hi', extra: 1 } })).statusCode).toBe(400);
      expect((await route(acme, 'x'.repeat(4_000))).statusCode).toBe(200);
    });

    it('judge triggered without an LLM configured: not called, fusion fallback, trace says why', async () => {
      const tenant = await t.createTenant();
      await create(tenant, POWER_RULE);
      await create(tenant, RESET_RULE);
      await t.request({
        method: 'PUT',
        url: '/admin/intent-config',
        headers: op(tenant),
        payload: { semanticThreshold: 1, grayZoneThreshold: 1, minTriggerThreshold: 0 },
      });
      const body = await routeBody(tenant, 'the arm does not power on');
      expect(body.routeTrace.llmJudge).toMatchObject({ triggered: true, skipped: 'no_client' });
      expect(body).toMatchObject({ finalIntent: 'power', decisionReason: 'fusion_fallback' });
    });

    it('a keyword rule in conflict with another intent semantic match keeps its intent when no judge answers (fusion_fallback)', async () => {
      const tenant = await t.createTenant();
      const power = (await create(tenant, POWER_RULE)).json<{ id: string }>();
      await create(tenant, RESET_RULE);
      // every semantic top of another intent conflicts with the rule hit, so the judge is triggered; no LLM is configured
      await t.request({ method: 'PUT', url: '/admin/intent-config', headers: op(tenant), payload: { conflictThreshold: 1 } });
      const body = await routeBody(tenant, 'power supply: how do I reset the robot arm after an emergency stop');
      expect(body.routeTrace.ruleMatch).toMatchObject({ intent: 'power', matchType: 'keyword' });
      expect(body.routeTrace.semanticMatch.topCandidates[0]?.intent).toBe('reset');
      expect(body.routeTrace.llmJudge).toMatchObject({ triggered: true, triggerReason: 'conflict', skipped: 'no_client' });
      expect(body).toMatchObject({ finalIntent: 'power', ruleId: power.id, decisionReason: 'fusion_fallback', needClarify: false });
      expect(body.finalConfidence).toBeGreaterThanOrEqual(0.625);
      expect(body.candidates[0]).toMatchObject({ intent: 'power' });
      expect(body.routeTrace.fusion).toMatchObject({ decisionReason: 'fusion_fallback' });
    });
  });

  describe('POST /admin/intent-rules/evaluate', () => {
    it('reports accuracy, per-intent metrics, confusions, out-of-scope recall and decision reasons', async () => {
      const res = await t.request({
        method: 'POST',
        url: '/admin/intent-rules/evaluate',
        headers: op(acme),
        payload: {
          examples: [
            { text: '机械臂怎么复位', intent: 'reset' },
            { text: 'reset please', intent: 'reset' },
            { text: 'power supply broken', intent: 'power' },
            { text: 'power supply broken', intent: 'reset' },
            { text: 'zzqx vvbn', intent: null },
          ],
        },
      });
      expect(res.statusCode).toBe(200);
      const report = res.json<{
        total: number;
        accuracy: number;
        outOfScopeRecall: number;
        perIntent: { intent: string; support: number; recall: number }[];
        confusions: { expected: string | null; predicted: string | null; count: number }[];
        decisionReasons: Record<string, number>;
        clarifyRate: number;
        judgeCallRate: number;
        config: { semanticThreshold: number };
      }>();
      expect(report).toMatchObject({ total: 5, accuracy: 0.8, outOfScopeRecall: 1, judgeCallRate: 0 });
      expect(report.perIntent).toEqual(expect.arrayContaining([expect.objectContaining({ intent: 'reset', support: 3 })]));
      expect(report.confusions).toEqual([{ expected: 'reset', predicted: 'power', count: 1 }]);
      expect(report.decisionReasons.rule_high_confidence).toBeGreaterThanOrEqual(3);
      expect(report.decisionReasons.no_match).toBe(1);
    });

    it('evaluates a trial config without saving it; another tenant scores with its own (empty) rules', async () => {
      const trial = await t.request({
        method: 'POST',
        url: '/admin/intent-rules/evaluate',
        headers: op(acme),
        payload: { examples: [{ text: 'reset please', intent: 'reset' }], config: { semanticMatcherEnabled: false } },
      });
      expect(trial.statusCode).toBe(200);
      expect(trial.json()).toMatchObject({ accuracy: 1, config: { semanticMatcherEnabled: false } });
      expect((await t.request({ method: 'GET', url: '/admin/intent-config', headers: op(acme) })).json()).toMatchObject({ semanticMatcherEnabled: true });
      const foreign = await t.request({
        method: 'POST',
        url: '/admin/intent-rules/evaluate',
        headers: op(other),
        payload: { examples: [{ text: 'reset please', intent: 'reset' }] },
      });
      expect(foreign.json()).toMatchObject({ accuracy: 0, decisionReasons: { no_match: 1 } });
    });

    it('rejects bad input (400)', async () => {
      const cases: [object, string][] = [
        [{ examples: [] }, 'examples'],
        [{}, 'examples'],
        [{ examples: [{ text: 'x' }] }, 'examples[0].intent'],
        [{ examples: [{ text: '  ', intent: 'a' }] }, 'examples[0].text'],
        [{ examples: [{ text: 'x', intent: 5 }] }, 'examples[0].intent'],
        [{ examples: [{ text: 'x', intent: 'a' }], config: { nope: 1 } }, 'config.nope'],
      ];
      for (const [payload, field] of cases) {
        const res = await t.request({ method: 'POST', url: '/admin/intent-rules/evaluate', headers: op(acme), payload });
        expect({ field, status: res.statusCode }).toEqual({ field, status: 400 });
        expect(res.json<ErrorBody>().details?.fields).toContain(field);
      }
    });
  });

  describe('auth', () => {
    const adminCalls = (id: string) => [
      { method: 'POST' as const, url: '/admin/intent-rules', payload: RESET_RULE },
      { method: 'GET' as const, url: '/admin/intent-rules' },
      { method: 'GET' as const, url: `/admin/intent-rules/${id}` },
      { method: 'PATCH' as const, url: `/admin/intent-rules/${id}`, payload: { priority: 1 } },
      { method: 'DELETE' as const, url: `/admin/intent-rules/${id}` },
      { method: 'POST' as const, url: '/admin/intent-rules/evaluate', payload: { examples: [{ text: 'x', intent: null }] } },
      { method: 'GET' as const, url: '/admin/intent-config' },
      { method: 'PUT' as const, url: '/admin/intent-config', payload: { semanticThreshold: 0.5 } },
    ];

    it('admin endpoints: client key → 403, no or bad key → 401', async () => {
      for (const call of adminCalls(reset.id)) {
        expect({ ...call, status: (await t.request({ ...call, headers: cl(acme) })).statusCode }).toMatchObject({ status: 403 });
        expect({ ...call, status: (await t.request(call)).statusCode }).toMatchObject({ status: 401 });
        expect({ ...call, status: (await t.request({ ...call, headers: { 'x-api-key': 'ak_wrong' } })).statusCode }).toMatchObject({ status: 401 });
      }
      expect((await t.request({ method: 'GET', url: `/admin/intent-rules/${reset.id}`, headers: op(acme) })).statusCode).toBe(200);
    });

    it('route: client and operator keys admitted, none → 401', async () => {
      expect((await route(acme, 'reset')).statusCode).toBe(200);
      expect((await t.request({ method: 'POST', url: '/ai/intent/route', headers: op(acme), payload: { message: 'reset' } })).statusCode).toBe(200);
      expect((await t.request({ method: 'POST', url: '/ai/intent/route', payload: { message: 'reset' } })).statusCode).toBe(401);
      expect(
        (await t.request({ method: 'POST', url: '/ai/intent/route', headers: { 'x-api-key': 'ak_wrong' }, payload: { message: 'reset' } })).statusCode,
      ).toBe(401);
    });
  });

  describe('demo intent set', () => {
    it('every demo rule is valid and routes its own Chinese and English examples', async () => {
      const demo = await t.createTenant();
      for (const rule of DEMO_INTENT_RULES) {
        const res = await create(demo, rule);
        expect({ intent: rule.intent, status: res.statusCode }).toEqual({ intent: rule.intent, status: 201 });
        expect(rule.semanticExamples?.filter((e) => /[\u4e00-\u9fff]/.test(e)).length).toBeGreaterThanOrEqual(5);
        expect(rule.semanticExamples?.filter((e) => /^[\x20-\x7e]+$/.test(e)).length).toBeGreaterThanOrEqual(5);
      }
      const expectations: [string, string][] = [
        ['机械臂报警了，错误码 E102', '故障诊断'],
        ['你好，我的机械臂报警了', '故障诊断'],
        ['电脑连不上控制器', '控制器连接'],
        ['示教器黑屏了怎么办', '示教器'],
        ['how do I do a firmware update', '固件升级'],
        ['我的订单什么时候发货', '订单状态'],
        ['I want a refund', '退款'],
        ['帮我转人工', '转人工'],
        ['你好', '问候'],
        ['hello', '问候'],
        ['零点标定怎么做', '安装调试'],
        ['保修期多久', '保修维修'],
      ];
      for (const [message, intent] of expectations) {
        const body = await routeBody(demo, message);
        expect({ message, intent: body.finalIntent }).toEqual({ message, intent });
      }
    });
  });

  it('exports Prometheus metrics with bounded labels', async () => {
    const res = await t.request({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(/arbiter_intent_route_duration_seconds_bucket\{le="[^"]+",path="total"\}/);
    expect(res.body).toMatch(/arbiter_intent_route_duration_seconds_count\{path="rule"\} [1-9]/);
    expect(res.body).toMatch(/arbiter_intent_route_duration_seconds_count\{path="semantic"\} [1-9]/);
    expect(res.body).toMatch(/arbiter_intent_decisions_total\{reason="rule_high_confidence"\} [1-9]/);
    expect(res.body).toMatch(/arbiter_intent_decisions_total\{reason="no_match"\} [1-9]/);
    expect(res.body).toMatch(/arbiter_intent_judge_calls_total\{outcome="skipped"\} [1-9]/);
    expect(res.body).not.toMatch(new RegExp(acme.id));
  });
});
