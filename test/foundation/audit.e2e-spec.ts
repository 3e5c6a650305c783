import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import Papa from 'papaparse';
import { createTestApp, TEST_ADMIN_TOKEN, type TestApp, type TestTenant } from '../support/test-app.js';

interface Entry {
  tenantId: string;
  action: string;
  resourceType: string;
  resourceId: string | null;
  label: string | null;
  requestId: string | null;
  actor: { kind: string; keyId?: string; name?: string };
  summary: Record<string, unknown>;
}
interface AuditPage {
  items: Entry[];
  nextCursor: string | null;
}

const ADMIN = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

/** Issue 25 item 4 (docs/http-edge.md "Audit log"). */
describe('audit log (e2e)', () => {
  let t: TestApp;
  let acme: TestTenant;
  let other: TestTenant;
  let viewerKey: string;

  const op = (tenant: TestTenant) => ({ 'x-api-key': tenant.operatorKey });
  const auditOf = async (headers: Record<string, string>, query = '') => {
    const res = await t.request({ method: 'GET', url: `/admin/audit${query}`, headers });
    expect(res.statusCode).toBe(200);
    return res.json<AuditPage>();
  };

  beforeAll(async () => {
    t = await createTestApp();
    acme = await t.createTenant();
    other = await t.createTenant();
    const viewer = await t.request({ method: 'POST', url: '/admin/api-keys', headers: op(acme), payload: { name: 'auditor', role: 'viewer' } });
    viewerKey = viewer.json<{ key: string }>().key;
  }, 240_000);
  afterAll(async () => {
    await t?.close();
  });

  it('records who created, rotated and revoked a key, with the request id, and never the secret', async () => {
    const created = await t.request({
      method: 'POST',
      url: '/admin/api-keys',
      headers: { ...op(acme), 'x-request-id': 'audit-e2e-create' },
      payload: { name: 'widget', role: 'client', allowedOrigins: ['https://shop.example.com'] },
    });
    const key = created.json<{ id: string; key: string }>();
    const rotated = await t.request({ method: 'POST', url: `/admin/api-keys/${key.id}/rotate`, headers: op(acme), payload: { gracePeriodSeconds: 60 } });
    await t.request({ method: 'DELETE', url: `/admin/api-keys/${key.id}`, headers: op(acme) });
    const page = await auditOf(op(acme), '?resourceType=api_key');
    const mine = page.items.filter((e) => e.resourceId === key.id);
    expect(mine.map((e) => e.action)).toEqual(['revoke', 'rotate', 'create']);
    expect(mine[2]).toMatchObject({
      label: 'widget',
      requestId: 'audit-e2e-create',
      actor: { kind: 'api_key', name: 'operator' },
      summary: { role: 'client', allowedOrigins: ['https://shop.example.com'] },
    });
    expect(mine[1].summary).toMatchObject({ gracePeriodSeconds: 60 });
    const text = JSON.stringify(page);
    expect(text).not.toContain(key.key);
    expect(text).not.toContain(rotated.json<{ key: string }>().key);
  });

  it('records the platform admin’s tenant creation and limit changes with before and after', async () => {
    await t.request({ method: 'PUT', url: `/admin/tenants/${acme.id}/limits`, headers: ADMIN, payload: { chat: { perMinute: 30 } } });
    const page = await auditOf(op(acme), '?resourceType=tenant_limits');
    expect(page.items[0]).toMatchObject({
      action: 'update',
      actor: { kind: 'platform_admin' },
      summary: { before: { chat: { perMinute: 0, perKeyPerMinute: 0 } }, after: { chat: { perMinute: 30, perKeyPerMinute: null } } },
    });
    const tenantEntry = (await auditOf(op(acme), '?resourceType=tenant')).items[0];
    expect(tenantEntry).toMatchObject({ action: 'create', resourceId: acme.id, label: acme.name, actor: { kind: 'platform_admin' } });
  });

  it('records intent rule and config changes with the intent as label, in the change’s transaction', async () => {
    const made = await t.request({ method: 'POST', url: '/admin/intent-rules', headers: op(acme), payload: { intent: 'refund', keywords: ['退款'] } });
    expect(made.statusCode).toBe(201);
    const id = made.json<{ id: string }>().id;
    await t.request({ method: 'PATCH', url: `/admin/intent-rules/${id}`, headers: op(acme), payload: { keywords: ['退款', 'refund'] } });
    await t.request({ method: 'DELETE', url: `/admin/intent-rules/${id}`, headers: op(acme) });
    const bulk = await t.request({
      method: 'POST',
      url: '/admin/intent-rules/bulk',
      headers: op(acme),
      payload: {
        rules: [
          { intent: 'ship', keywords: ['发货'] },
          { intent: 'invoice', keywords: ['发票'] },
        ],
      },
    });
    expect(bulk.statusCode).toBe(201);
    const rules = (await auditOf(op(acme), '?resourceType=intent_rule')).items;
    expect(rules.slice(0, 4).map((e) => [e.action, e.label])).toEqual([
      ['create', '2 rules'],
      ['delete', 'refund'],
      ['update', 'refund'],
      ['create', 'refund'],
    ]);
    expect(rules[0].summary).toMatchObject({ count: 2, intents: ['ship', 'invoice'] });
    expect(rules[2].summary).toMatchObject({ changed: ['keywords'] });
    // A refused write records nothing.
    const refused = await t.request({ method: 'POST', url: '/admin/intent-rules', headers: op(acme), payload: { intent: '', keywords: [] } });
    expect(refused.statusCode).toBe(400);
    expect((await auditOf(op(acme), '?resourceType=intent_rule')).items).toHaveLength(rules.length);
    const config = await t.request({ method: 'PUT', url: '/admin/intent-config', headers: op(acme), payload: { clarifyThreshold: 0.45 } });
    expect(config.statusCode).toBe(200);
    const entry = (await auditOf(op(acme), '?resourceType=intent_config')).items[0];
    expect(entry).toMatchObject({ action: 'update', summary: { before: {}, after: { clarifyThreshold: 0.45 } } });
  });

  it('records webhook subscriptions created, updated, rotated and deleted (the URL, never the secret)', async () => {
    const hook = await createTestApp({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' }, t.db);
    try {
      const made = await hook.request({
        method: 'POST',
        url: '/admin/webhooks',
        headers: op(acme),
        payload: { url: 'http://127.0.0.1:9/hook', events: ['handoff.requested'] },
      });
      expect(made.statusCode).toBe(201);
      const { id, secret } = made.json<{ id: string; secret: string }>();
      await hook.request({ method: 'PATCH', url: `/admin/webhooks/${id}`, headers: op(acme), payload: { events: ['handoff.requested', 'job.failed'] } });
      const rotated = await hook.request({ method: 'POST', url: `/admin/webhooks/${id}/rotate`, headers: op(acme), payload: { overlapSeconds: 0 } });
      expect((await hook.request({ method: 'DELETE', url: `/admin/webhooks/${id}`, headers: op(acme) })).statusCode).toBe(204);
      const entries = (await auditOf(op(acme), '?resourceType=webhook')).items.filter((e) => e.resourceId === id);
      expect(entries.map((e) => e.action)).toEqual(['delete', 'rotate', 'update', 'create']);
      expect(entries[3]).toMatchObject({ label: 'http://127.0.0.1:9/hook', summary: { events: ['handoff.requested'] } });
      expect(entries[2].summary).toMatchObject({ changed: ['events'] });
      const text = JSON.stringify(entries);
      expect(text).not.toContain(secret);
      expect(text).not.toContain(rotated.json<{ secret: string }>().secret);
    } finally {
      await hook.close();
    }
  });

  it('keeps each tenant to its own log; a viewer reads it; a client key may not; the platform admin sees one or all', async () => {
    await t.request({ method: 'POST', url: '/admin/api-keys', headers: op(other), payload: { name: 'other-only', role: 'client' } });
    expect((await auditOf(op(acme))).items.every((e) => e.tenantId === acme.id)).toBe(true);
    expect((await auditOf(op(other))).items.some((e) => e.label === 'other-only')).toBe(true);
    expect((await auditOf({ 'x-api-key': viewerKey })).items.some((e) => e.label === 'widget')).toBe(true);
    expect((await t.request({ method: 'GET', url: '/admin/audit', headers: { 'x-api-key': acme.clientKey } })).statusCode).toBe(403);
    const peek = await t.request({ method: 'GET', url: `/admin/audit?tenantId=${other.id}`, headers: op(acme) });
    expect(peek.statusCode).toBe(400);
    const all = await auditOf(ADMIN, '?limit=200');
    expect(new Set(all.items.map((e) => e.tenantId))).toEqual(new Set([acme.id, other.id]));
    const one = await auditOf(ADMIN, `?tenantId=${other.id}`);
    expect(one.items.every((e) => e.tenantId === other.id)).toBe(true);
  });

  it('pages with a cursor and filters by action', async () => {
    for (let i = 0; i < 3; i++) await t.request({ method: 'POST', url: '/admin/api-keys', headers: op(acme), payload: { name: `paged-${i}`, role: 'client' } });
    const first = await auditOf(op(acme), '?action=create&resourceType=api_key&limit=2');
    expect(first.items.map((e) => e.label)).toEqual(['paged-2', 'paged-1']);
    const second = await auditOf(op(acme), `?action=create&resourceType=api_key&limit=2&cursor=${first.nextCursor}`);
    expect(second.items[0].label).toBe('paged-0');
    for (const bad of ['?limit=0', '?cursor=nope', '?from=yesterday', '?resourceType=Api-Key', '?actorKeyId=x']) {
      expect((await t.request({ method: 'GET', url: `/admin/audit${bad}`, headers: op(acme) })).statusCode).toBe(400);
    }
  });

  it('exports CSV with formulas defused', async () => {
    await t.request({ method: 'POST', url: '/admin/api-keys', headers: op(acme), payload: { name: '=HYPERLINK("http://x")', role: 'client' } });
    const res = await t.request({ method: 'GET', url: '/admin/audit/export?resourceType=api_key', headers: op(acme) });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv');
    const parsed = Papa.parse<Record<string, string>>(res.body.trim(), { header: true });
    expect(parsed.data.length).toBeGreaterThan(3);
    const formula = parsed.data.find((r) => r.label.includes('HYPERLINK'));
    expect(formula?.label).toBe(`'=HYPERLINK("http://x")`);
    expect(parsed.data.every((r) => r.tenantId === acme.id)).toBe(true);
  });

  it('sets retention (1–3650 days), recorded with before and after; bad values are 400 and write nothing; viewers may not', async () => {
    expect((await t.request({ method: 'GET', url: '/admin/audit/settings', headers: op(acme) })).json()).toEqual({ retentionDays: 365 });
    const set = await t.request({ method: 'PUT', url: '/admin/audit/settings', headers: op(acme), payload: { retentionDays: 90 } });
    expect(set.json()).toEqual({ retentionDays: 90 });
    expect((await auditOf(op(acme), '?resourceType=audit_settings')).items[0].summary).toEqual({
      before: { retentionDays: 365 },
      after: { retentionDays: 90 },
    });
    for (const retentionDays of [0, 3651, 'long', 1.5]) {
      const bad = await t.request({ method: 'PUT', url: '/admin/audit/settings', headers: op(acme), payload: { retentionDays } });
      expect(bad.statusCode).toBe(400);
      expect(bad.json<{ message: string }>().message).toContain('retentionDays');
    }
    expect(
      (await t.request({ method: 'PUT', url: '/admin/audit/settings', headers: { 'x-api-key': viewerKey }, payload: { retentionDays: 5 } })).statusCode,
    ).toBe(403);
    expect((await t.request({ method: 'GET', url: '/admin/audit/settings', headers: op(acme) })).json()).toEqual({ retentionDays: 90 });
    expect((await t.request({ method: 'GET', url: '/admin/audit/settings', headers: op(other) })).json()).toEqual({ retentionDays: 365 });
  });
});
