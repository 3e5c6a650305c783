import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { InjectOptions } from 'fastify';
import { WebhookDispatcher } from '@arbiter/webhooks';
import { multipartBody } from '../support/multipart.js';
import { createTestApp, TEST_ADMIN_TOKEN, type TestApp, type TestTenant } from '../support/test-app.js';

interface Entry {
  tenantId: string;
  action: string;
  resourceType: string;
  resourceId: string | null;
  label: string | null;
  actor: { kind: string; keyId?: string; name?: string };
  summary: Record<string, unknown>;
}

const RULES = [
  { intent: 'fault', keywords: ['报警', 'alarm'], semanticExamples: ['机械臂报警了怎么办'], priority: 10 },
  { intent: 'cooling', keywords: ['散热风扇', 'fan'], semanticExamples: ['散热风扇坏了'], priority: 10 },
];
const OPERATOR = { kind: 'api_key', name: 'operator' };

/**
 * Issue 25 item 4 (docs/http-edge.md "Audit log"): every operator write of knowledge, the case library, bad-case
 * reviews, learning, tenant settings, evaluation, stats and webhooks is in the log — actor, action, resource type
 * and id, label and summary — and a refused request (400) writes no entry.
 */
describe('audit log: the writes of every lib (e2e)', () => {
  let t: TestApp;
  let acme: TestTenant;
  let other: TestTenant;

  const send = (tenant: TestTenant, method: InjectOptions['method'], url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    t.request({
      method,
      url,
      headers: { 'x-api-key': tenant.operatorKey, ...headers },
      ...(payload !== undefined ? { payload: payload as InjectOptions['payload'] } : {}),
    });
  const ok = async (tenant: TestTenant, method: InjectOptions['method'], url: string, payload?: unknown, status = 200) => {
    const res = await send(tenant, method, url, payload);
    expect([res.statusCode, res.body.slice(0, 300)]).toEqual([status, expect.any(String)]);
    return res;
  };
  /** The tenant's entries of one resource type, newest first. */
  const entries = async (tenant: TestTenant, resourceType: string): Promise<Entry[]> => {
    const res = await send(tenant, 'GET', `/admin/audit?resourceType=${resourceType}&limit=200`);
    expect(res.statusCode).toBe(200);
    return res.json<{ items: Entry[] }>().items;
  };
  /** A refused request: 400, and no entry of the resource type appears. */
  const refused = async (tenant: TestTenant, resourceType: string, method: InjectOptions['method'], url: string, payload: unknown) => {
    const before = (await entries(tenant, resourceType)).length;
    const res = await send(tenant, method, url, payload);
    expect([res.statusCode, res.body.slice(0, 300)]).toEqual([400, expect.any(String)]);
    expect(await entries(tenant, resourceType)).toHaveLength(before);
  };
  const document = async (tenant: TestTenant, filePath: string, title: string, content = `${title}：断电后检查伺服驱动器接线，再复位报警。`) =>
    (await ok(tenant, 'POST', '/admin/knowledge/documents', { domain: 'arm', filePath, title, content }, 201)).json<{ document: { id: string } }>().document.id;
  let turns = 0;
  /** A chat turn of the tenant marked not_useful: a bad case. */
  const badCase = async (tenant: TestTenant): Promise<string> => {
    const chat = await t.request({
      method: 'POST',
      url: '/ai/chat',
      headers: { 'x-api-key': tenant.clientKey },
      payload: { message: `机械臂报警 E${100 + ++turns} 怎么处理` },
    });
    expect(chat.statusCode).toBe(200);
    const sessionId = chat.json<{ sessionId: string }>().sessionId;
    const feedback = await t.request({
      method: 'POST',
      url: '/api/feedback',
      headers: { 'x-api-key': tenant.clientKey },
      payload: { sessionId, feedback: 'not_useful' },
    });
    expect(feedback.statusCode).toBe(200);
    return sessionId;
  };

  beforeAll(async () => {
    t = await createTestApp({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' });
    acme = await t.createTenant('audit-writes-acme');
    other = await t.createTenant('audit-writes-other');
    for (const tenant of [acme, other]) await ok(tenant, 'POST', '/admin/intent-rules/bulk', { rules: RULES }, 201);
  }, 240_000);
  afterAll(async () => {
    await t?.close();
  });

  it('documents: created, updated, deleted (title as label) and bulk writes with counts', async () => {
    const id = await document(acme, 'arm/servo.md', '伺服驱动器手册');
    await ok(
      acme,
      'POST',
      '/admin/knowledge/documents',
      { domain: 'arm', filePath: 'arm/servo.md', title: '伺服驱动器手册 v2', content: '新的内容：先断电。' },
      201,
    );
    const bulk = await ok(acme, 'POST', '/admin/knowledge/documents/bulk', [
      { domain: 'arm', filePath: 'arm/a.md', title: 'A 手册', content: 'A 的内容' },
      { domain: 'arm', filePath: 'arm/b.md', title: 'B 手册', content: 'B 的内容' },
      { domain: 'arm', filePath: 'arm/bad.md' },
    ]);
    expect(bulk.json<{ summary: Record<string, number> }>().summary).toMatchObject({ created: 2, failed: 1 });
    await ok(acme, 'DELETE', `/admin/knowledge/documents/${id}`, undefined, 204);
    const log = await entries(acme, 'knowledge_document');
    expect(log.map((e) => [e.action, e.label])).toEqual([
      ['delete', '伺服驱动器手册 v2'],
      ['bulk_upsert', '2 documents'],
      ['update', '伺服驱动器手册 v2'],
      ['create', '伺服驱动器手册'],
    ]);
    expect(log[0]).toMatchObject({ resourceId: id, actor: OPERATOR, summary: { filePath: 'arm/servo.md', domain: 'arm' } });
    expect(log[1].summary).toMatchObject({ count: 2, created: 2, updated: 0, requested: 3, filePaths: ['arm/a.md', 'arm/b.md'] });
    expect(log[2]).toMatchObject({ resourceId: id, summary: { filePath: 'arm/servo.md', version: 2 } });
    expect(log[3]).toMatchObject({ resourceId: id, actor: OPERATOR, summary: { filePath: 'arm/servo.md', domain: 'arm', version: 1 } });
    await refused(acme, 'knowledge_document', 'POST', '/admin/knowledge/documents', { domain: 'arm', filePath: 'arm/x.md', title: 'x' });
    expect(await entries(other, 'knowledge_document')).toEqual([]);
  });

  it('chunks edited: the document and chunk, what changed, before and after', async () => {
    const id = await document(acme, 'arm/chunks.md', '分块手册');
    await ok(acme, 'PATCH', `/admin/knowledge/documents/${id}/chunks/0`, { disabled: true });
    const [entry] = await entries(acme, 'knowledge_chunk');
    expect(entry).toMatchObject({
      action: 'update',
      resourceId: `${id}#0`,
      label: '分块手册 #0',
      actor: OPERATOR,
      summary: { documentId: id, chunkIndex: 0, changed: ['disabled'], before: { disabled: false }, after: { disabled: true } },
    });
    await refused(acme, 'knowledge_chunk', 'PATCH', `/admin/knowledge/documents/${id}/chunks/0`, {});
  });

  it('files uploaded and imports accepted: file names and counts, in the transaction that stores them', async () => {
    const body = await multipartBody([
      { name: 'file', fileName: 'manual.md', bytes: new TextEncoder().encode('# 手册\n\n断电后检查接线。'), type: 'text/markdown' },
      { name: 'domain', value: 'arm' },
    ]);
    const upload = await t.request({
      method: 'POST',
      url: '/admin/knowledge/files',
      headers: { 'x-api-key': acme.operatorKey, ...body.headers },
      payload: body.payload,
    });
    expect([upload.statusCode, upload.body.slice(0, 300)]).toEqual([202, expect.any(String)]);
    const importId = upload.json<{ importId: string }>().importId;
    const [file] = await entries(acme, 'knowledge_file');
    expect(file).toMatchObject({
      action: 'upload',
      resourceId: importId,
      label: 'manual.md',
      actor: OPERATOR,
      summary: { accepted: 1, refused: 0, files: [{ fileName: 'manual.md', mediaType: 'text/markdown' }] },
    });
    const started = await ok(
      acme,
      'POST',
      '/admin/knowledge/imports',
      [
        { domain: 'arm', filePath: 'imp/1.md', title: '导入一', content: '一' },
        { domain: 'arm', filePath: 'imp/2.md', title: '导入二', content: '二' },
        { domain: 'arm', filePath: 'imp/bad.md' },
      ],
      202,
    );
    const [accepted] = await entries(acme, 'knowledge_import');
    expect(accepted).toMatchObject({
      action: 'import',
      resourceId: started.json<{ importId: string }>().importId,
      label: '3 documents',
      summary: { total: 3, queued: 2, failed: 1, filePaths: ['imp/1.md', 'imp/2.md'] },
    });
    await refused(acme, 'knowledge_import', 'POST', '/admin/knowledge/imports', []);
  });

  it('tenant settings: retrieval, case library and decision log settings with before and after', async () => {
    await ok(acme, 'PUT', '/admin/knowledge/config', { chunkSize: 600, memoryTtlSeconds: 120 });
    const [retrieval] = await entries(acme, 'retrieval_settings');
    expect(retrieval).toMatchObject({ action: 'update', label: 'retrieval settings', actor: OPERATOR });
    expect(retrieval.summary).toEqual({
      before: { chunkSize: expect.any(Number), memoryTtlSeconds: expect.any(Number) },
      after: { chunkSize: 600, memoryTtlSeconds: 120 },
    });
    await refused(acme, 'retrieval_settings', 'PUT', '/admin/knowledge/config', { chunkSize: 'big' });

    await ok(acme, 'PUT', '/admin/case-library/settings', { threshold: 0.9 });
    await ok(acme, 'PUT', '/admin/case-library/settings', { threshold: null });
    const cases = await entries(acme, 'case_library_settings');
    expect(cases.map((e) => e.summary)).toEqual([
      { before: { threshold: 0.9 }, after: { threshold: null } },
      { before: { threshold: null }, after: { threshold: 0.9 } },
    ]);
    await refused(acme, 'case_library_settings', 'PUT', '/admin/case-library/settings', { threshold: 1.5 });

    await ok(acme, 'PUT', '/admin/intent/decision-settings', { retentionDays: 14 });
    const [decisions] = await entries(acme, 'decision_log_settings');
    expect(decisions).toMatchObject({
      action: 'update',
      actor: OPERATOR,
      summary: { before: { retentionDays: expect.any(Number) }, after: { retentionDays: 14 } },
    });
    await refused(acme, 'decision_log_settings', 'PUT', '/admin/intent/decision-settings', { retentionDays: 0 });
    expect(await entries(other, 'retrieval_settings')).toEqual([]);
  });

  it('a grade calibration reset names the fit it drops', async () => {
    // The fit itself (20+ labelled hybrid searches) is too slow for this suite on the embedded database; its entry is
    // written by the same settings statement and callback. A stored fit stands in for one here.
    await ok(acme, 'PUT', '/admin/knowledge/config', { chunkSize: 500 });
    const fittedAt = '2026-11-30T10:00:00.000Z';
    await t.db.pool.query(`UPDATE retrieval_settings SET grading = $2::jsonb WHERE tenant_id = $1`, [
      acme.id,
      JSON.stringify({ embedder: 'local', fittedAt, calibration: {} }),
    ]);
    await ok(acme, 'DELETE', '/admin/knowledge/grading');
    const [reset] = await entries(acme, 'retrieval_grading');
    expect(reset).toMatchObject({
      action: 'reset',
      label: 'grade calibration',
      actor: OPERATOR,
      summary: { before: { fittedAt, embedder: 'local' }, after: { source: 'default' } },
    });
    await refused(acme, 'retrieval_grading', 'POST', '/admin/knowledge/grading/fit', { pairs: [{ query: 'x', filePath: null }] });
    expect(await entries(other, 'retrieval_grading')).toEqual([]);
  });

  it('case library cases: created, edited and retracted, the question as label', async () => {
    const made = await ok(acme, 'POST', '/admin/case-library', { query: '示教器无法开机', answer: '检查示教器电源线。' }, 201);
    const id = made.json<{ id: string }>().id;
    await ok(acme, 'PATCH', `/admin/case-library/${id}`, { answer: '先检查电源线，再检查保险丝。' });
    await ok(acme, 'DELETE', `/admin/case-library/${id}`, undefined, 204);
    const log = await entries(acme, 'case');
    expect(log.map((e) => [e.action, e.resourceId, e.label])).toEqual([
      ['delete', id, '示教器无法开机'],
      ['update', id, '示教器无法开机'],
      ['create', id, '示教器无法开机'],
    ]);
    expect(log[1].summary).toMatchObject({ changed: ['answer'], sourceType: 'MANUAL' });
    expect(log[2]).toMatchObject({ actor: OPERATOR, summary: { sourceType: 'MANUAL', faultCategory: 'GENERAL' } });
    expect(JSON.stringify(log)).not.toContain('先检查电源线');
    await refused(acme, 'case', 'POST', '/admin/case-library', { query: '' });
  });

  it('bad-case reviews and accepted examples, the question as label', async () => {
    const sessionId = await badCase(acme);
    await ok(acme, 'PUT', `/admin/bad-cases/${sessionId}/review`, { intent: 'fault', note: 'wrong manual', status: 'RESOLVED' });
    const [review] = await entries(acme, 'bad_case_review');
    expect(review).toMatchObject({
      action: 'review',
      resourceId: sessionId,
      label: expect.stringContaining('机械臂报警'),
      actor: OPERATOR,
      summary: { changed: expect.arrayContaining(['intent', 'note', 'status']), after: { intent: 'fault', note: 'wrong manual', status: 'RESOLVED' } },
    });
    await refused(acme, 'bad_case_review', 'PUT', `/admin/bad-cases/${sessionId}/review`, { intent: 'nope' });
    await ok(acme, 'POST', `/admin/bad-cases/${sessionId}/accept-example`, { intent: 'fault' });
    const [label] = await entries(acme, 'bad_case_label');
    expect(label).toMatchObject({
      action: 'accept_example',
      resourceId: sessionId,
      label: expect.stringContaining('机械臂报警'),
      summary: { intent: 'fault', ruleId: expect.any(String) },
    });
    expect((await entries(acme, 'intent_rule'))[0]).toMatchObject({ action: 'update', label: 'fault', summary: { changed: ['semanticExamples'] } });
    expect(await entries(other, 'bad_case_review')).toEqual([]);
  });

  it('learning: labelled sets uploaded, snapshotted and deleted; decisions labelled; fits and replays requested', async () => {
    const examples = [
      { text: '机械臂报警了', intent: 'fault' },
      { text: '报警灯一直亮', intent: 'fault' },
      { text: '风扇不转了', intent: 'cooling' },
      { text: '散热风扇很吵', intent: 'cooling' },
      { text: '今天天气怎么样', intent: null },
    ];
    const set = (await ok(acme, 'POST', '/admin/intent/labelled-sets', { name: 'audit-set', examples }, 201)).json<{ id: string }>();
    const fit = (await ok(acme, 'POST', '/admin/intent-config/fit', { labelledSetId: set.id }, 202)).json<{ id: string }>();
    expect((await entries(acme, 'intent_fit'))[0]).toMatchObject({
      action: 'request',
      resourceId: fit.id,
      label: 'audit-set v1',
      actor: OPERATOR,
      summary: { labelledSetId: set.id, examples: 5 },
    });
    await refused(acme, 'intent_fit', 'POST', '/admin/intent-config/fit', { labelledSetId: 'nope' });
    const snap = await ok(acme, 'POST', '/admin/intent/labelled-sets/snapshot', { name: 'from-bad-cases', sources: ['bad_cases'] }, 201);
    await ok(acme, 'DELETE', `/admin/intent/labelled-sets/${set.id}`, undefined, 204);
    const sets = await entries(acme, 'labelled_set');
    expect(sets.map((e) => [e.action, e.label])).toEqual([
      ['delete', 'audit-set v1'],
      ['create', 'from-bad-cases v1'],
      ['create', 'audit-set v1'],
    ]);
    expect(sets[1]).toMatchObject({ resourceId: snap.json<{ set: { id: string } }>().set.id, summary: { kind: 'snapshot', sources: ['bad_cases'] } });
    expect(sets[2].summary).toMatchObject({ kind: 'upload', examples: 5, version: 1 });
    await refused(acme, 'labelled_set', 'POST', '/admin/intent/labelled-sets', { name: 'x', examples: [{ text: '', intent: 'fault' }] });

    const routed = await t.request({
      method: 'POST',
      url: '/ai/intent/route',
      headers: { 'x-api-key': acme.clientKey },
      payload: { message: '风扇坏了怎么办' },
    });
    expect(routed.statusCode).toBe(200);
    let decisionId: string | undefined;
    for (let i = 0; i < 60 && decisionId === undefined; i++) {
      const listed = (await send(acme, 'GET', '/admin/intent/decisions?limit=50')).json<{ items: { id: string; message: string }[] }>().items;
      decisionId = listed.find((d) => d.message === '风扇坏了怎么办')?.id;
      if (decisionId === undefined) await new Promise((r) => setTimeout(r, 50));
    }
    expect(decisionId).toBeDefined();
    await ok(acme, 'PUT', `/admin/intent/decisions/${decisionId}/label`, { intent: 'cooling' });
    expect((await entries(acme, 'decision_label'))[0]).toMatchObject({
      action: 'label',
      resourceId: decisionId,
      label: 'cooling',
      summary: { intent: 'cooling' },
    });
    await refused(acme, 'decision_label', 'PUT', `/admin/intent/decisions/${decisionId}/label`, { intent: 'nope' });

    const replay = await ok(
      acme,
      'POST',
      '/admin/intent/replay',
      { from: new Date(Date.now() - 60_000).toISOString(), config: { semanticMatcherEnabled: false } },
      202,
    );
    expect((await entries(acme, 'intent_replay'))[0]).toMatchObject({
      action: 'request',
      resourceId: replay.json<{ id: string }>().id,
      summary: { decisions: expect.any(Number), candidate: ['config'] },
    });
    await refused(acme, 'intent_replay', 'POST', '/admin/intent/replay', { decisionIds: [] });
  });

  it('an applied fit is an intent config change naming the version it was fitted on (If-Match)', async () => {
    const read = await ok(acme, 'GET', '/admin/intent-config');
    const version = JSON.parse(read.headers.etag as string) as string;
    const res = await send(acme, 'PUT', '/admin/intent-config', { clarifyThreshold: 0.4 }, { 'if-match': `"${version}"` });
    expect(res.statusCode).toBe(200);
    expect((await entries(acme, 'intent_config'))[0]).toMatchObject({ action: 'update', summary: { ifMatch: version, after: { clarifyThreshold: 0.4 } } });
  });

  it('a self-evaluation re-run, a stats rebuild and a coverage re-evaluation', async () => {
    const sessionId = await badCase(acme);
    await ok(acme, 'POST', `/admin/sessions/${sessionId}/evaluate`);
    expect((await entries(acme, 'self_evaluation'))[0]).toMatchObject({
      action: 'evaluate',
      resourceId: sessionId,
      label: expect.stringContaining('机械臂报警'),
      actor: OPERATOR,
      summary: { after: { source: expect.any(String), confidence: expect.any(Number) } },
    });
    const rebuilt = (await ok(acme, 'POST', '/admin/monitoring/stats/rebuild')).json<{ sessionBuckets: number; coverageBuckets: number }>();
    expect((await entries(acme, 'stats_rollup'))[0]).toMatchObject({
      action: 'rebuild',
      summary: { sessionBuckets: rebuilt.sessionBuckets, coverageBuckets: rebuilt.coverageBuckets },
    });
    const job = (await ok(acme, 'POST', '/admin/coverage/re-evaluate', { from: '2026-01-01' }, 202)).json<{ jobId: string }>();
    expect((await entries(acme, 'coverage_backfill'))[0]).toMatchObject({ action: 're_evaluate', resourceId: job.jobId, summary: { evaluatorVersion: 'v1' } });
    await refused(acme, 'coverage_backfill', 'POST', '/admin/coverage/re-evaluate', { evaluatorVersion: 'v999' });
    expect(await entries(other, 'self_evaluation')).toEqual([]);
  });

  it('a webhook redelivery names the webhook and the event', async () => {
    const hook = (await ok(other, 'POST', '/admin/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['feedback.bad_case'] }, 201)).json<{ id: string }>();
    await badCase(other);
    // The job worker is off in tests: the outbox is dispatched here (as in webhook-causes.e2e-spec.ts).
    expect(await t.app.get(WebhookDispatcher).dispatchPending()).toBeGreaterThan(0);
    const deliveries = (await ok(other, 'GET', `/admin/webhooks/${hook.id}/deliveries`)).json<{ items: { id: string; eventId: string }[] }>().items;
    expect(deliveries.length).toBeGreaterThan(0);
    const again = await ok(other, 'POST', `/admin/webhooks/${hook.id}/deliveries/${deliveries[0].id}/redeliver`, undefined, 202);
    expect((await entries(other, 'webhook_delivery'))[0]).toMatchObject({
      action: 'redeliver',
      resourceId: again.json<{ id: string }>().id,
      label: 'http://127.0.0.1:9/hook',
      summary: { webhookId: hook.id, redeliveryOf: deliveries[0].id, eventType: 'feedback.bad_case' },
    });
    expect(await entries(acme, 'webhook_delivery')).toEqual([]);
  });

  it('keeps each tenant to its own log, and the platform admin sees both', async () => {
    const mine = (await send(acme, 'GET', '/admin/audit?limit=200')).json<{ items: Entry[] }>().items;
    expect(mine.length).toBeGreaterThan(20);
    expect(mine.every((e) => e.tenantId === acme.id)).toBe(true);
    const theirs = (await send(other, 'GET', '/admin/audit?limit=200')).json<{ items: Entry[] }>().items;
    expect(theirs.every((e) => e.tenantId === other.id)).toBe(true);
    expect((await send(acme, 'GET', `/admin/audit?tenantId=${other.id}`)).statusCode).toBe(400);
    const all = await t.request({
      method: 'GET',
      url: '/admin/audit?limit=200&resourceType=webhook_delivery',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    });
    expect(all.json<{ items: Entry[] }>().items.map((e) => e.tenantId)).toEqual([other.id]);
  });
});
