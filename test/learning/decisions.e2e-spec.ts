import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { InjectOptions } from 'fastify';
import { asTenantId } from '@arbiter/common';
import { JobsService } from '@arbiter/jobs';
import { createTestApp, type TestApp, type TestTenant } from '../support/test-app.js';

/** Issue 14 items 1–2: the decision log (route + chat, filters, cursor, labels, retention) and labelled sets. */

interface Decision {
  id: string;
  createdAt: string;
  source: string;
  sessionId: string | null;
  message: string;
  configVersion: string;
  rulesVersion: string;
  intent: string | null;
  reason: string;
  needClarify: boolean;
  confidence: number;
  candidates: { intent: string; confidence: number }[];
  trace: { fusion?: { decisionReason: string }; ruleMatch?: unknown };
  latencyMs: number;
  label: { intent: string | null; labelledAt: string } | null;
}
interface Page<T> {
  items: T[];
  nextCursor: string | null;
}
interface LabelledSet {
  id: string;
  name: string;
  version: number;
  kind: string;
  exampleCount: number;
  outOfScopeCount: number;
  examples?: Page<{ id: string; line: number | null; text: string; intent: string | null; decisionId: string | null }>;
}
interface ErrorBody {
  code?: string;
  message: string;
  details?: { fields?: string[]; unknownIntents?: string[] };
}

const RULES = [
  { intent: 'reset', keywords: ['reset', '复位'], action: 'answer', reply: 'Hold the reset button.' },
  { intent: 'firmware', keywords: ['firmware', '固件'], action: 'answer', reply: 'Use the upgrade tool.' },
];

describe('decision log and labelled data (e2e)', () => {
  let t: TestApp;
  let acme: TestTenant;
  let other: TestTenant;
  const routed: Record<string, string> = {};

  const send = (tenant: TestTenant, method: InjectOptions['method'], url: string, payload?: unknown, key: 'operatorKey' | 'clientKey' = 'operatorKey') =>
    t.request({ method, url, headers: { 'x-api-key': tenant[key] }, ...(payload !== undefined ? { payload: payload as InjectOptions['payload'] } : {}) });
  const jsonl = (tenant: TestTenant, name: string, body: string) =>
    t.request({
      method: 'POST',
      url: `/admin/intent/labelled-sets?name=${encodeURIComponent(name)}`,
      headers: { 'x-api-key': tenant.operatorKey, 'content-type': 'application/x-ndjson' },
      payload: body,
    });
  const decisions = async (tenant: TestTenant, query = ''): Promise<Page<Decision>> => {
    const res = await send(tenant, 'GET', `/admin/intent/decisions${query}`);
    expect([res.statusCode, res.body.slice(0, 300)]).toEqual([200, expect.any(String)]);
    return res.json<Page<Decision>>();
  };
  const rowCount = async (table: string) => (await t.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]!.n;
  const expect400 = (res: { statusCode: number; json: <T>() => T; body: string }, field: string) => {
    expect([res.statusCode, res.body.slice(0, 300)]).toEqual([400, expect.any(String)]);
    expect(res.json<ErrorBody>().details?.fields).toContain(field);
  };

  beforeAll(async () => {
    t = await createTestApp();
    [acme, other] = await Promise.all([t.createTenant('learning-acme'), t.createTenant('learning-other')]);
    for (const [tenant, rules] of [
      [acme, RULES],
      [other, [{ intent: 'billing', keywords: ['invoice'] }]],
    ] as const) {
      const res = await send(tenant, 'POST', '/admin/intent-rules/bulk', { rules });
      expect(res.statusCode).toBe(201);
    }
    const route = async (tenant: TestTenant, message: string) => {
      const res = await send(tenant, 'POST', '/ai/intent/route', { message }, 'clientKey');
      expect(res.statusCode).toBe(200);
    };
    await route(acme, 'how do I reset the arm');
    await route(acme, 'is it going to rain tomorrow');
    const chat = await send(acme, 'POST', '/ai/chat', { message: 'which firmware do I need' }, 'clientKey');
    expect(chat.statusCode).toBe(200);
    routed.chatSession = chat.json<{ sessionId: string }>().sessionId;
    await route(other, 'where is my invoice');
    // Written off the request path, in a batch ~100 ms later: wait for it (no flush call).
    for (let i = 0; i < 60 && (await rowCount('decision_log')) < 4; i++) await new Promise((r) => setTimeout(r, 50));
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a route call and a chat turn are logged with message, versions, decision, candidates, trace, latency and source', async () => {
    const { items } = await decisions(acme);
    expect(items.map((d) => [d.source, d.message])).toEqual([
      ['chat', 'which firmware do I need'],
      ['route', 'is it going to rain tomorrow'],
      ['route', 'how do I reset the arm'],
    ]);
    const versions = (
      await t.db.pool.query<{ rules: string; config: string }>(
        'SELECT rules_version::text AS rules, config_version::text AS config FROM intent_tenant_config WHERE tenant_id = $1',
        [acme.id],
      )
    ).rows[0]!;
    for (const d of items) expect([d.rulesVersion, d.configVersion]).toEqual([versions.rules, versions.config]);
    const [chat, rain, reset] = items as [Decision, Decision, Decision];
    expect(reset).toMatchObject({ intent: 'reset', reason: 'rule_high_confidence', needClarify: false, sessionId: null, label: null });
    expect(reset.candidates[0]).toMatchObject({ intent: 'reset' });
    expect(reset.trace.fusion?.decisionReason).toBe('rule_high_confidence');
    expect(reset.latencyMs).toBeGreaterThan(0);
    expect(rain).toMatchObject({ intent: null, reason: 'no_match' });
    expect(chat).toMatchObject({ source: 'chat', sessionId: routed.chatSession, intent: 'firmware' });
    routed.reset = reset.id;
    routed.rain = rain.id;
    // Tenant isolation: the other tenant sees its own decision only, and none of acme's by id.
    expect((await decisions(other)).items.map((d) => d.message)).toEqual(['where is my invoice']);
    expect((await send(other, 'GET', `/admin/intent/decisions/${reset.id}`)).statusCode).toBe(404);
    expect((await send(acme, 'GET', `/admin/intent/decisions/${reset.id}`)).json<Decision>().id).toBe(reset.id);
    // Operator only.
    expect((await send(acme, 'GET', '/admin/intent/decisions', undefined, 'clientKey')).statusCode).toBe(403);
  });

  it('filters by intent, reason, clarify, source and time; the cursor walks every decision once', async () => {
    const ids = (p: Page<Decision>) => p.items.map((d) => d.id);
    expect(ids(await decisions(acme, '?intent=reset'))).toEqual([routed.reset]);
    expect(ids(await decisions(acme, '?reason=no_match'))).toEqual([routed.rain]);
    expect((await decisions(acme, '?needClarify=true')).items).toEqual([]);
    expect(await decisions(acme, '?needClarify=false&source=route')).toMatchObject({ items: [{ id: routed.rain }, { id: routed.reset }] });
    const resetAt = (await send(acme, 'GET', `/admin/intent/decisions/${routed.reset}`)).json<Decision>().createdAt;
    expect(ids(await decisions(acme, `?to=${encodeURIComponent(resetAt)}`))).toEqual([routed.reset]);
    expect((await decisions(acme, '?from=2999-01-01T00:00:00Z')).items).toEqual([]);
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Page<Decision> = await decisions(acme, `?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      walked.push(...ids(page));
      cursor = page.nextCursor;
    } while (cursor);
    expect(walked).toEqual(ids(await decisions(acme)));
    expect(walked).toHaveLength(3);
  });

  it.each([
    ['from', '?from=yesterday'],
    ['from', '?from=2026-12-01T00:00:00Z&to=2026-11-01T00:00:00Z'],
    ['reason', '?reason=guess'],
    ['needClarify', '?needClarify=maybe'],
    ['source', '?source=email'],
    ['limit', '?limit=0'],
    ['unknownFilter', '?unknownFilter=1'],
  ])('GET /admin/intent/decisions: bad %s → 400 naming it', async (field, query) => {
    expect400(await send(acme, 'GET', `/admin/intent/decisions${query}`), field);
  });

  it('an operator labels a decision: it joins the review set; unknown intents and bad bodies are 400 and write nothing; another tenant cannot label it', async () => {
    const url = `/admin/intent/decisions/${routed.rain}/label`;
    const before = await rowCount('labelled_example');
    const unknown = await send(acme, 'PUT', url, { intent: 'weather' });
    expect400(unknown, 'intent');
    expect(unknown.json<ErrorBody>()).toMatchObject({ code: 'UNKNOWN_INTENTS', details: { unknownIntents: ['weather'] } });
    expect(unknown.json<ErrorBody>().message).toContain('weather');
    expect400(await send(acme, 'PUT', url, {}), 'intent');
    expect400(await send(acme, 'PUT', url, { intent: '  ' }), 'intent');
    expect((await send(other, 'PUT', url, { intent: 'billing' })).statusCode).toBe(404);
    expect((await send(acme, 'PUT', url, { intent: 'reset' }, 'clientKey')).statusCode).toBe(403);
    expect((await send(acme, 'PUT', '/admin/intent/decisions/not-a-uuid/label', { intent: 'reset' })).statusCode).toBe(400);
    expect(await rowCount('labelled_example')).toBe(before);

    const first = await send(acme, 'PUT', url, { intent: 'firmware' });
    expect(first.json()).toMatchObject({ decisionId: routed.rain, text: 'is it going to rain tomorrow', intent: 'firmware' });
    const outOfScope = await send(acme, 'PUT', url, { intent: null });
    expect(outOfScope.statusCode).toBe(200);
    expect((await send(acme, 'GET', `/admin/intent/decisions/${routed.rain}`)).json<Decision>().label).toEqual({
      intent: null,
      labelledAt: expect.any(String),
    });
    const review = (await send(acme, 'GET', '/admin/intent/labelled-sets?name=review')).json<Page<LabelledSet>>().items;
    expect(review).toEqual([expect.objectContaining({ name: 'review', kind: 'review', version: 1, exampleCount: 1, outOfScopeCount: 1 })]);
    expect((await send(other, 'GET', '/admin/intent/labelled-sets?name=review')).json<Page<LabelledSet>>().items).toEqual([]);
  });

  it('labelled sets: upload JSONL and JSON (each upload a new version), list, fetch examples page by page, delete; other tenants see none', async () => {
    const v1 = await jsonl(
      acme,
      'train',
      '{"text":"reset it","intent":"reset"}\n\n{"text":"weather?","intent":null}\n{"text":"new firmware","intent":"firmware"}\n',
    );
    expect([v1.statusCode, v1.body.slice(0, 200)]).toEqual([201, expect.any(String)]);
    expect(v1.json()).toMatchObject({ name: 'train', version: 1, kind: 'upload', exampleCount: 3, outOfScopeCount: 1 });
    const v2 = await send(acme, 'POST', '/admin/intent/labelled-sets', { name: 'train', examples: [{ text: 'reset again', intent: 'reset' }] });
    expect(v2.json()).toMatchObject({ name: 'train', version: 2, exampleCount: 1 });
    const listed = (await send(acme, 'GET', '/admin/intent/labelled-sets?name=train')).json<Page<LabelledSet>>();
    expect(listed.items.map((s) => s.version)).toEqual([2, 1]);

    const id = v1.json<LabelledSet>().id;
    const seen: { line: number | null; text: string; intent: string | null }[] = [];
    let cursor: string | null = null;
    do {
      const res = await send(acme, 'GET', `/admin/intent/labelled-sets/${id}?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      const set = res.json<LabelledSet>();
      expect(set).toMatchObject({ id, name: 'train', version: 1 });
      seen.push(...set.examples!.items.map(({ line, text, intent }) => ({ line, text, intent })));
      cursor = set.examples!.nextCursor;
    } while (cursor);
    expect(seen.sort((a, b) => a.line! - b.line!)).toEqual([
      { line: 1, text: 'reset it', intent: 'reset' },
      { line: 3, text: 'weather?', intent: null },
      { line: 4, text: 'new firmware', intent: 'firmware' },
    ]);

    expect((await send(other, 'GET', `/admin/intent/labelled-sets/${id}`)).statusCode).toBe(404);
    expect((await send(other, 'DELETE', `/admin/intent/labelled-sets/${id}`)).statusCode).toBe(404);
    expect((await send(other, 'GET', '/admin/intent/labelled-sets')).json<Page<LabelledSet>>().items).toEqual([]);
    expect((await send(acme, 'GET', '/admin/intent/labelled-sets', undefined, 'clientKey')).statusCode).toBe(403);
    expect((await send(acme, 'DELETE', `/admin/intent/labelled-sets/${id}`)).statusCode).toBe(204);
    expect((await send(acme, 'GET', `/admin/intent/labelled-sets/${id}`)).statusCode).toBe(404);
    expect((await send(acme, 'GET', '/admin/intent/labelled-sets?name=train')).json<Page<LabelledSet>>().items.map((s) => s.version)).toEqual([2]);
  });

  it('a bad upload is a 400 naming every bad line (or the unknown intents, or the name) and writes nothing', async () => {
    const before = [await rowCount('labelled_set'), await rowCount('labelled_example')];
    const bad = await jsonl(acme, 'bad', '{"text":"ok","intent":"reset"}\nnot json\n{"intent":"reset"}\n{"text":"x","intent":5}\n');
    expect400(bad, 'line 2');
    expect(bad.json<ErrorBody>().details?.fields).toEqual(['line 2', 'line 3.text', 'line 4.intent']);
    const unknown = await jsonl(acme, 'bad', '{"text":"a","intent":"reset"}\n{"text":"b","intent":"zeta"}\n{"text":"c","intent":"alpha"}\n');
    expect(unknown.json<ErrorBody>()).toMatchObject({ code: 'UNKNOWN_INTENTS', details: { unknownIntents: ['alpha', 'zeta'] } });
    expect(unknown.statusCode).toBe(400);
    // billing is another tenant's intent: unknown here
    expect(
      (await send(acme, 'POST', '/admin/intent/labelled-sets', { name: 'x', examples: [{ text: 'a', intent: 'billing' }] })).json<ErrorBody>().details,
    ).toMatchObject({ unknownIntents: ['billing'] });
    expect400(await send(acme, 'POST', '/admin/intent/labelled-sets', { examples: [{ text: 'a', intent: null }] }), 'name');
    expect400(await send(acme, 'POST', '/admin/intent/labelled-sets', { name: 'review', examples: [{ text: 'a', intent: null }] }), 'name');
    expect400(await send(acme, 'POST', '/admin/intent/labelled-sets', { name: 'has space', examples: [{ text: 'a', intent: null }] }), 'name');
    expect400(await send(acme, 'POST', '/admin/intent/labelled-sets', { name: 'x', examples: [] }), 'examples');
    expect400(await send(acme, 'POST', '/admin/intent/labelled-sets', { name: 'x', examples: [{ text: 'a', intent: null, extra: 1 }] }), 'examples[0].extra');
    expect400(await jsonl(acme, 'x', '\n'), 'body');
    expect([await rowCount('labelled_set'), await rowCount('labelled_example')]).toEqual(before);
  });

  it('retention: default 30 days, validated, per tenant; the cleanup job deletes what is older, only in its tenant', async () => {
    expect((await send(acme, 'GET', '/admin/intent/decision-settings')).json()).toEqual({ retentionDays: 30 });
    expect400(await send(acme, 'PUT', '/admin/intent/decision-settings', { retentionDays: 0 }), 'retentionDays');
    expect400(await send(acme, 'PUT', '/admin/intent/decision-settings', { retentionDays: 3651 }), 'retentionDays');
    expect400(await send(acme, 'PUT', '/admin/intent/decision-settings', { retentionDays: 1.5 }), 'retentionDays');
    expect((await send(acme, 'PUT', '/admin/intent/decision-settings', { retentionDays: 7 })).json()).toEqual({ retentionDays: 7 });
    expect((await send(acme, 'GET', '/admin/intent/decision-settings')).json()).toEqual({ retentionDays: 7 });
    expect((await send(other, 'GET', '/admin/intent/decision-settings')).json()).toEqual({ retentionDays: 30 });

    expect((await send(acme, 'PUT', `/admin/intent/decisions/${routed.reset}/label`, { intent: 'reset' })).statusCode).toBe(200);
    // Age acme's reset decision and the other tenant's decision by 8 days: past acme's 7, within the other's 30.
    // The time is a value: Citus refuses `created_at - interval` (a STABLE function of a column) in an UPDATE (docs/SCALING.md "Running on Citus").
    const eightDaysAgo = new Date(Date.now() - 8 * 86_400_000);
    await t.db.pool.query(`UPDATE decision_log SET created_at = $3 WHERE id = $1 OR tenant_id = $2`, [routed.reset, other.id, eightDaysAgo]);
    const jobs = t.app.get(JobsService);
    for (const tenant of [acme, other]) await jobs.enqueue(asTenantId(tenant.id), 'learning.decision-log-cleanup', {});
    await jobs.runPending();
    expect((await decisions(acme)).items.map((d) => d.id)).not.toContain(routed.reset);
    expect((await decisions(acme)).items).toHaveLength(2);
    expect((await decisions(other)).items).toHaveLength(1);
    // A review label outlives its decision (the example keeps the message).
    const review = (await send(acme, 'GET', '/admin/intent/labelled-sets?name=review')).json<Page<LabelledSet>>().items[0]!;
    const examples = (await send(acme, 'GET', `/admin/intent/labelled-sets/${review.id}`)).json<LabelledSet>().examples!.items;
    expect(examples.map((e) => [e.decisionId, e.text, e.intent])).toContainEqual([routed.reset, 'how do I reset the arm', 'reset']);
  });
});
