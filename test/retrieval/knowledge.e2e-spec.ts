import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { asTenantId } from '@arbiter/common';
import { DEMO_KNOWLEDGE, KnowledgeService, LookupService, type LookupResult } from '@arbiter/retrieval';
import { createTestApp, type TestApp, type TestTenant } from '../support/test-app.js';

interface Doc {
  id: string;
  filePath: string;
  domain: string;
  title: string;
  chunkCount: number;
  version: number;
}
interface LookupBody {
  results: { documentId: string; filePath: string; title: string; domain: string; content: string; distance: number; similarity: number }[];
  relevanceLevel: string;
  completenessHint: string | null;
  l0MatchCount: number;
  l1TopSimilarity: number | null;
  domain: string | null;
  retrievedDomainsThisSession: string[];
  dedupReason: string | null;
  confidence: { score: number; level: string; reasons: string[]; event: string };
}

const RESET = {
  domain: 'robot-arm',
  filePath: 'robot-arm/reset.md',
  title: '机械臂复位步骤',
  keywords: ['复位', 'reset'],
  content: '机械臂复位前请先断开负载。按住控制器上的复位键三秒，指示灯变为绿色即完成复位。若指示灯闪烁红色，请检查急停按钮是否已释放。',
};
const POWER = {
  domain: 'robot-arm',
  filePath: 'robot-arm/power.md',
  title: 'Power supply troubleshooting',
  keywords: ['power supply'],
  content: 'If the arm does not power on, check the mains cable and the fuse. The controller needs 220 V. Replace the fuse with the same rating.',
};
const BILLING = {
  domain: 'billing',
  filePath: 'billing/invoice.md',
  title: 'Invoices',
  keywords: ['invoice'],
  content: 'Invoices are issued monthly. Download them from the customer portal under Billing.',
};

describe('knowledge base and lookup (e2e)', () => {
  let t: TestApp;
  let acme: TestTenant;
  let other: TestTenant;
  const op = (tenant: TestTenant) => ({ 'x-api-key': tenant.operatorKey });
  const cl = (tenant: TestTenant) => ({ 'x-api-key': tenant.clientKey });
  const upsert = (tenant: TestTenant, payload: object) => t.request({ method: 'POST', url: '/admin/knowledge/documents', headers: op(tenant), payload });
  const lookup = (tenant: TestTenant, payload: object) => t.request({ method: 'POST', url: '/ai/knowledge/lookup', headers: cl(tenant), payload });

  beforeAll(async () => {
    t = await createTestApp();
    acme = await t.createTenant();
    other = await t.createTenant();
    for (const doc of [RESET, POWER, BILLING]) expect((await upsert(acme, doc)).statusCode).toBe(201);
    // The other tenant has identical file paths with different content.
    expect((await upsert(other, { ...RESET, content: 'OTHER TENANT SECRET 复位 content. 另一个租户的机密。', title: '机械臂复位步骤' })).statusCode).toBe(201);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  describe('documents', () => {
    it('upserts by filePath: unchanged re-post is a no-op, a change replaces the chunks', async () => {
      const again = await upsert(acme, RESET);
      expect(again.statusCode).toBe(201);
      expect(again.json<{ status: string }>().status).toBe('unchanged');

      const changed = await upsert(acme, { ...POWER, content: POWER.content + ' Fuses are in the rear panel.' });
      expect(changed.json<{ status: string; document: Doc }>()).toMatchObject({ status: 'updated', document: { filePath: POWER.filePath, version: 2 } });
      const docId = changed.json<{ document: Doc }>().document.id;
      const chunks = await t.db.pool.query<{ content: string }>('SELECT content FROM knowledge_chunk WHERE document_id = $1', [docId]);
      expect(chunks.rows.map((r) => r.content).join(' ')).toContain('rear panel');
      const docs = await t.db.pool.query('SELECT 1 FROM knowledge_document WHERE tenant_id = $1 AND file_path = $2', [acme.id, POWER.filePath]);
      expect(docs.rowCount).toBe(1);
    });

    it('stores unit-norm vectors only (seed T7: |norm − 1| < 0.01)', async () => {
      const { rows } = await t.db.pool.query<{ norm: number; dim: number }>(
        'SELECT vector_norm(embedding) AS norm, embedding_dim AS dim, vector_dims(embedding) AS dims FROM knowledge_chunk',
      );
      expect(rows.length).toBeGreaterThan(0);
      for (const r of rows) expect(Math.abs(Number(r.norm) - 1)).toBeLessThan(0.01);
    });

    it.each([
      ['empty filePath', { ...RESET, filePath: '' }, 'filePath'],
      ['blank filePath', { ...RESET, filePath: '   ' }, 'filePath'],
      ['missing title', { domain: 'x', filePath: 'x.md', content: 'text' }, 'title'],
      ['empty content', { ...RESET, filePath: 'e.md', content: '' }, 'content'],
      ['keywords not strings', { ...RESET, filePath: 'k.md', keywords: [1] }, 'keywords'],
      ['unknown field', { ...RESET, filePath: 'u.md', extra: true }, 'extra'],
    ])('rejects %s with 400 naming the field', async (_n, payload, field) => {
      const res = await upsert(acme, payload);
      expect(res.statusCode).toBe(400);
      expect(JSON.stringify(res.json())).toContain(field);
    });

    it('rejects a document over 2 MiB with 400 (not 413) and stores nothing', async () => {
      const res = await upsert(acme, { ...RESET, filePath: 'big.md', content: 'a'.repeat(2 * 1024 * 1024 + 1) });
      expect(res.statusCode).toBe(400);
      expect(res.json<{ code: string }>().code).toBe('DOCUMENT_TOO_LARGE');
      const n = await t.db.pool.query('SELECT 1 FROM knowledge_document WHERE file_path = $1', ['big.md']);
      expect(n.rowCount).toBe(0);
    });

    it('lists with cursor pagination and a domain filter, only the own tenant', async () => {
      const page1 = await t.request({ method: 'GET', url: '/admin/knowledge/documents?limit=2', headers: op(acme) });
      expect(page1.statusCode).toBe(200);
      const p1 = page1.json<{ items: Doc[]; nextCursor: string | null }>();
      expect(p1.items).toHaveLength(2);
      expect(p1.nextCursor).toEqual(expect.any(String));
      const page2 = await t.request({ method: 'GET', url: `/admin/knowledge/documents?limit=2&cursor=${p1.nextCursor}`, headers: op(acme) });
      const p2 = page2.json<{ items: Doc[]; nextCursor: string | null }>();
      const all = [...p1.items, ...p2.items].map((d) => d.filePath).sort();
      expect(all).toEqual([BILLING.filePath, POWER.filePath, RESET.filePath].sort());
      expect(p2.nextCursor).toBeNull();

      const billing = await t.request({ method: 'GET', url: '/admin/knowledge/documents?domain=billing', headers: op(acme) });
      expect(billing.json<{ items: Doc[] }>().items.map((d) => d.filePath)).toEqual([BILLING.filePath]);

      const bad = await t.request({ method: 'GET', url: '/admin/knowledge/documents?cursor=nope', headers: op(acme) });
      expect(bad.statusCode).toBe(400);
      const badLimit = await t.request({ method: 'GET', url: '/admin/knowledge/documents?limit=0', headers: op(acme) });
      expect(badLimit.statusCode).toBe(400);
    });

    it('auth: client keys cannot manage documents, missing keys are 401', async () => {
      expect((await t.request({ method: 'GET', url: '/admin/knowledge/documents', headers: cl(acme) })).statusCode).toBe(403);
      expect((await t.request({ method: 'GET', url: '/admin/knowledge/documents' })).statusCode).toBe(401);
      expect((await t.request({ method: 'POST', url: '/ai/knowledge/lookup', payload: { sessionId: 's', query: 'q' } })).statusCode).toBe(401);
    });

    it('deletes a document; another tenant gets 404 and keeps its own', async () => {
      const created = await upsert(acme, { ...BILLING, filePath: 'billing/tmp.md' });
      const id = created.json<{ document: Doc }>().document.id;
      expect((await t.request({ method: 'DELETE', url: `/admin/knowledge/documents/${id}`, headers: op(other) })).statusCode).toBe(404);
      expect((await t.request({ method: 'GET', url: `/admin/knowledge/documents/${id}`, headers: op(other) })).statusCode).toBe(404);
      expect((await t.request({ method: 'DELETE', url: `/admin/knowledge/documents/${id}`, headers: op(acme) })).statusCode).toBe(204);
      expect((await t.request({ method: 'DELETE', url: `/admin/knowledge/documents/${id}`, headers: op(acme) })).statusCode).toBe(404);
      expect((await t.request({ method: 'DELETE', url: '/admin/knowledge/documents/not-a-uuid', headers: op(acme) })).statusCode).toBe(400);
      const chunks = await t.db.pool.query('SELECT 1 FROM knowledge_chunk WHERE document_id = $1', [id]);
      expect(chunks.rowCount).toBe(0);
    });

    it('bulk import (JSON array and NDJSON) with per-item results', async () => {
      const res = await t.request({
        method: 'POST',
        url: '/admin/knowledge/documents/bulk',
        headers: op(acme),
        payload: [
          { domain: 'faq', filePath: 'faq/1.md', title: 'FAQ one', content: 'First answer.' },
          { domain: 'faq', filePath: '', title: 'bad', content: 'x' },
          { domain: 'faq', filePath: 'faq/1.md', title: 'dup', content: 'dup' },
          'not an object',
        ],
      });
      expect(res.statusCode).toBe(200);
      const body = res.json<{ results: { index: number; status: string; error?: { fields?: string[] } }[]; summary: Record<string, number> }>();
      expect(body.results.map((r) => r.status)).toEqual(['created', 'failed', 'failed', 'failed']);
      expect(body.results[1].error?.fields).toContain('filePath');
      expect(body.summary).toEqual({ created: 1, updated: 0, unchanged: 0, failed: 3 });

      const ndjson = [JSON.stringify({ domain: 'faq', filePath: 'faq/2.md', title: 'FAQ two', content: 'Second answer.' }), '{broken'].join('\n');
      const bad = await t.request({
        method: 'POST',
        url: '/admin/knowledge/documents/bulk',
        headers: { ...op(acme), 'content-type': 'application/x-ndjson' },
        payload: ndjson,
      });
      expect(bad.statusCode).toBe(400);
      const good = await t.request({
        method: 'POST',
        url: '/admin/knowledge/documents/bulk',
        headers: { ...op(acme), 'content-type': 'application/x-ndjson' },
        payload: ndjson.split('\n')[0] + '\n' + JSON.stringify({ domain: 'faq', filePath: 'faq/1.md', title: 'FAQ one', content: 'First answer.' }) + '\n',
      });
      expect(good.statusCode).toBe(200);
      expect(good.json<{ results: { status: string }[] }>().results.map((r) => r.status)).toEqual(['created', 'unchanged']);
    });
  });

  describe('lookup', () => {
    it.each([
      ['empty query', { sessionId: 's', query: '' }, 'query'],
      ['blank query', { sessionId: 's', query: '   ' }, 'query'],
      ['topK 0', { sessionId: 's', query: 'q', topK: 0 }, 'topK'],
      ['topK 21', { sessionId: 's', query: 'q', topK: 21 }, 'topK'],
      ['topK not an integer', { sessionId: 's', query: 'q', topK: 2.5 }, 'topK'],
      ['missing sessionId', { query: 'q' }, 'sessionId'],
      ['bad confidenceProfile', { sessionId: 's', query: 'q', confidenceProfile: 'nope' }, 'confidenceProfile'],
    ])('rejects %s with 400', async (_n, payload, field) => {
      const res = await lookup(acme, payload);
      expect(res.statusCode).toBe(400);
      expect(JSON.stringify(res.json())).toContain(field);
    });

    it('L0 keyword hit → PRECISE; a repeat in the session → doc_retrieved; foreign documents never returned', async () => {
      const first = await lookup(acme, { sessionId: 'never-seen-1', query: '机械臂怎么复位？' });
      expect(first.statusCode).toBe(200);
      const a = first.json<LookupBody>();
      expect(a).toMatchObject({
        relevanceLevel: 'PRECISE',
        completenessHint: null,
        domain: 'robot-arm',
        dedupReason: null,
        retrievedDomainsThisSession: ['robot-arm'],
      });
      expect(a.l0MatchCount).toBeGreaterThanOrEqual(1);
      expect(a.results[0].filePath).toBe(RESET.filePath);
      expect(a.results.map((r) => r.content).join(' ')).not.toContain('OTHER TENANT');
      expect(a.confidence).toMatchObject({ level: expect.any(String), event: expect.stringMatching(/-confidence$/), reasons: expect.any(Array) });
      for (const r of a.results) {
        expect(r.similarity).toBeCloseTo(1 - Math.min(r.distance, 2) / 2, 9);
      }
      const docs = await t.db.pool.query<{ id: string }>('SELECT id FROM knowledge_document WHERE tenant_id = $1', [acme.id]);
      const own = new Set(docs.rows.map((r) => r.id));
      for (const r of a.results) expect(own.has(r.documentId)).toBe(true);

      const repeat = await lookup(acme, { sessionId: 'never-seen-1', query: '机械臂怎么复位？', topK: 20 });
      const b = repeat.json<LookupBody>();
      // Everything relevant was returned already, or only unseen documents come back.
      const firstPaths = new Set(a.results.map((r) => r.filePath));
      for (const r of b.results) expect(firstPaths.has(r.filePath)).toBe(false);
      const third = await lookup(acme, { sessionId: 'never-seen-1', query: '机械臂怎么复位？', topK: 20 });
      const c = third.json<LookupBody>();
      expect(c).toMatchObject({ results: [], dedupReason: 'doc_retrieved', relevanceLevel: 'PRECISE' });
      expect(c.confidence.reasons).toEqual(['无搜索结果']);
      expect(c.retrievedDomainsThisSession).toContain('robot-arm');

      const theirs = await lookup(other, { sessionId: 'never-seen-1', query: '机械臂怎么复位？' });
      const o = theirs.json<LookupBody>();
      expect(o.results).toHaveLength(1);
      expect(o.results[0].content).toContain('OTHER TENANT');
      expect(o.dedupReason).toBeNull();
    });

    it('near-verbatim query → HIGHLY_RELEVANT; unrelated query → REFERENCE/INSUFFICIENT; then domain_retrieved', async () => {
      const session = 'walk-2';
      const high = (
        await lookup(acme, { sessionId: session, query: `${POWER.title}\n${POWER.content} Fuses are in the rear panel.`, domain: 'robot-arm' })
      ).json<LookupBody>();
      expect(high.relevanceLevel === 'HIGHLY_RELEVANT' || high.relevanceLevel === 'PRECISE').toBe(true);
      expect(high.completenessHint).toBeNull();
      expect(high.results[0].filePath).toBe(POWER.filePath);

      const unrelated = (await lookup(acme, { sessionId: 'walk-other', query: 'qwxz plmk vbnj' })).json<LookupBody>();
      expect(unrelated).toMatchObject({ relevanceLevel: 'REFERENCE', completenessHint: 'INSUFFICIENT', l0MatchCount: 0 });

      const vague = (await lookup(acme, { sessionId: session, query: 'qwxz plmk vbnj', domain: 'robot-arm' })).json<LookupBody>();
      expect(vague).toMatchObject({ relevanceLevel: 'REFERENCE', results: [], dedupReason: 'domain_retrieved', domain: 'robot-arm' });
      expect(vague.retrievedDomainsThisSession).toEqual(['robot-arm']);
    });

    it('per-tenant normalization override changes the grading (and is validated)', async () => {
      const bad = await t.request({ method: 'PUT', url: '/admin/knowledge/config', headers: op(other), payload: { referenceThreshold: 0.9 } });
      expect(bad.statusCode).toBe(400);
      const badType = await t.request({ method: 'PUT', url: '/admin/knowledge/config', headers: op(other), payload: { maxL2Distance: 'x' } });
      expect(badType.statusCode).toBe(400);
      const ok = await t.request({
        method: 'PUT',
        url: '/admin/knowledge/config',
        headers: op(other),
        payload: { referenceThreshold: 0, highlyRelevantThreshold: 0.99 },
      });
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toMatchObject({ normalization: { maxL2Distance: 2, highlyRelevantThreshold: 0.99, referenceThreshold: 0 } });
      const r = (await lookup(other, { sessionId: 'cfg', query: 'qwxz plmk vbnj' })).json<LookupBody>();
      expect(r).toMatchObject({ relevanceLevel: 'REFERENCE', completenessHint: 'PARTIAL' });
      // acme keeps the defaults
      const mine = await t.request({ method: 'GET', url: '/admin/knowledge/config', headers: op(acme) });
      expect(mine.json()).toMatchObject({
        normalization: { maxL2Distance: 2, highlyRelevantThreshold: 0.75, referenceThreshold: 0.5 },
        memoryTtlSeconds: 86400,
      });
    });

    it('20 parallel lookups in one session never return a document twice', async () => {
      const docs = Array.from({ length: 12 }, (_, i) => ({
        domain: 'parallel',
        filePath: `parallel/${i}.md`,
        title: `Parallel doc ${i}`,
        keywords: ['parallelkw'],
        content: `Parallel document number ${i} about the parallelkw topic.`,
      }));
      const imported = await t.request({ method: 'POST', url: '/admin/knowledge/documents/bulk', headers: op(acme), payload: docs });
      expect(imported.json<{ summary: { created: number } }>().summary.created).toBe(12);
      const responses = await Promise.all(
        Array.from({ length: 20 }, () => lookup(acme, { sessionId: 'parallel-session', query: 'parallelkw', domain: 'parallel', topK: 1 })),
      );
      const bodies = responses.map((r) => r.json<LookupBody>());
      const returned = bodies.flatMap((b) => b.results.map((r) => r.filePath));
      expect(new Set(returned).size).toBe(returned.length);
      expect(returned).toHaveLength(12);
      expect(bodies.filter((b) => b.dedupReason === 'doc_retrieved')).toHaveLength(8);
      const rows = await t.db.pool.query('SELECT 1 FROM retrieval_memory WHERE tenant_id = $1 AND session_id = $2', [acme.id, 'parallel-session']);
      expect(rows.rowCount).toBe(12);
    }, 60_000);

    it('an expired session memory starts fresh', async () => {
      const s = 'expiring';
      expect((await lookup(acme, { sessionId: s, query: 'invoice' })).json<LookupBody>().results.length).toBeGreaterThan(0);
      expect((await lookup(acme, { sessionId: s, query: 'invoice', domain: 'billing' })).json<LookupBody>().dedupReason).toBe('doc_retrieved');
      await t.db.pool.query(`UPDATE retrieval_memory SET expires_at = now() - interval '1 second' WHERE tenant_id = $1 AND session_id = $2`, [acme.id, s]);
      const again = (await lookup(acme, { sessionId: s, query: 'invoice', domain: 'billing' })).json<LookupBody>();
      expect(again.dedupReason).toBeNull();
      expect(again.results[0].filePath).toBe(BILLING.filePath);
    });

    it('a lookup told its session is fresh (docs/hot-paths.md "Chat turn") decides like one that read the memory, also when the session has memory after all', async () => {
      const lookups = t.app.get(LookupService);
      const tenantId = asTenantId(acme.id);
      const billing = { query: 'invoice', domain: 'billing' };
      // Only robot-arm documents: no claim of this lookup meets the billing row, only the memory check does.
      const arm = { query: 'reset the robot arm', domain: 'robot-arm' };
      const same = ({ results, relevanceLevel, domain, retrievedDomainsThisSession, dedupReason }: LookupResult) => ({
        results: results.map((r) => r.filePath),
        relevanceLevel,
        domain,
        retrievedDomainsThisSession,
        dedupReason,
      });
      // A session with memory (a billing document): the second lookup's domains include billing, whether or not it was told "fresh".
      await lookups.lookup(tenantId, { sessionId: 'read-1', ...billing });
      await lookups.lookup(tenantId, { sessionId: 'fresh-1', ...billing });
      const read = await lookups.lookup(tenantId, { sessionId: 'read-1', ...arm });
      const fresh = await lookups.lookup(tenantId, { sessionId: 'fresh-1', ...arm }, { freshSession: { settings: null } });
      expect(read.retrievedDomainsThisSession).toContain('billing');
      expect(same(fresh)).toEqual(same(read));
      // The same document again in that session: withheld either way.
      const readAgain = await lookups.lookup(tenantId, { sessionId: 'read-1', ...billing });
      const freshAgain = await lookups.lookup(tenantId, { sessionId: 'fresh-1', ...billing }, { freshSession: { settings: null } });
      expect(readAgain.dedupReason).not.toBeNull();
      expect(same(freshAgain)).toEqual(same(readAgain));
      // A session that is fresh indeed: the same answer and the same memory rows.
      const first = await lookups.lookup(tenantId, { sessionId: 'fresh-2', ...billing }, { freshSession: { settings: null } });
      expect(same(first)).toEqual(same(await lookups.lookup(tenantId, { sessionId: 'read-2', ...billing })));
      const rows = await t.db.pool.query<{ session_id: string; file_path: string }>(
        `SELECT session_id, file_path FROM retrieval_memory WHERE tenant_id = $1 AND session_id IN ('fresh-2', 'read-2') ORDER BY file_path, session_id`,
        [acme.id],
      );
      expect(rows.rows.filter((r) => r.session_id === 'fresh-2').map((r) => r.file_path)).toEqual(
        rows.rows.filter((r) => r.session_id === 'read-2').map((r) => r.file_path),
      );
      expect(rows.rows.length).toBeGreaterThan(0);
    });

    it('the demo knowledge base answers Chinese and English questions', async () => {
      const demo = await t.createTenant();
      const knowledge = t.app.get(KnowledgeService);
      for (const doc of DEMO_KNOWLEDGE) await knowledge.upsert(asTenantId(demo.id), doc);
      const zh = (await lookup(demo, { sessionId: 'demo-zh', query: '机械臂报警 E201 怎么处理？' })).json<LookupBody>();
      expect(zh).toMatchObject({ relevanceLevel: 'PRECISE', domain: 'fault-codes' });
      expect(zh.results[0].filePath).toBe('faults/e201-servo-overcurrent.md');
      const en = (await lookup(demo, { sessionId: 'demo-en', query: 'When is the VAT invoice issued after payment?' })).json<LookupBody>();
      expect(en).toMatchObject({ relevanceLevel: 'PRECISE', domain: 'orders' });
      expect(en.results[0].filePath).toBe('orders/invoice.md');
    });

    it('writes a tool_invocation row with the seed T6 fields for a known session', async () => {
      const session = await t.request({
        method: 'POST',
        url: '/api/sessions',
        headers: cl(acme),
        payload: { query: '机械臂复位', answer: 'ok', status: 'SUCCESS' },
      });
      expect(session.statusCode).toBe(201);
      const sessionId = session.json<{ id: string }>().id;
      await lookup(acme, { sessionId, query: '机械臂怎么复位？' });
      await lookup(acme, { sessionId, query: '机械臂怎么复位？', topK: 20 });
      await lookup(acme, { sessionId, query: '机械臂怎么复位？', topK: 20 });
      const { rows } = await t.db.pool.query<{
        tool_name: string;
        relevance_level: string;
        dedup_reason: string | null;
        retrieval_details: Record<string, unknown>;
        tenant_id: string;
      }>('SELECT tool_name, relevance_level, dedup_reason, retrieval_details, tenant_id FROM tool_invocation WHERE session_id = $1 ORDER BY created_at', [
        sessionId,
      ]);
      expect(rows).toHaveLength(3);
      expect(rows[0]).toMatchObject({ tool_name: 'lookup_knowledge', relevance_level: 'PRECISE', dedup_reason: null, tenant_id: acme.id });
      expect(rows[0].retrieval_details).toMatchObject({
        relevance_level: 'PRECISE',
        completeness_hint: null,
        retrieved_domains: ['robot-arm'],
        dedup_reason: null,
      });
      expect(rows[0].retrieval_details).toHaveProperty('l1_top_similarity');
      expect(rows[2]).toMatchObject({ dedup_reason: 'doc_retrieved' });
      // The other tenant using acme's session id gets no row written into acme's session.
      await lookup(other, { sessionId, query: '复位' });
      const after = await t.db.pool.query('SELECT 1 FROM tool_invocation WHERE session_id = $1', [sessionId]);
      expect(after.rowCount).toBe(3);
    });

    it("leaves a tool_invocation for an external agent's lookups too: on the tenant's external session for that id, created on first sight, never on another tenant's session", async () => {
      type Row = {
        session_id: string;
        tenant_id: string;
        relevance_level: string;
        dedup_reason: string | null;
        channel: string;
        status: string;
        tool_call_count: number;
        knowledge_searched: boolean;
        route_trace: { externalSessionId?: string } | null;
      };
      const traced = async (tenant: TestTenant, externalId: string) =>
        (
          await t.db.pool.query<Row>(
            `SELECT i.session_id, i.tenant_id, i.relevance_level, i.dedup_reason, s.channel, s.status, s.tool_call_count, s.knowledge_searched, s.route_trace
             FROM tool_invocation i JOIN diagnosis_session s ON s.tenant_id = i.tenant_id AND s.id = i.session_id
            WHERE s.tenant_id = $1 AND s.route_trace->>'externalSessionId' = $2 ORDER BY i.created_at`,
            [tenant.id, externalId],
          )
        ).rows;
      // No sessionId-shaped id: the external run "bot-run-7" of acme, twice (the second is deduplicated by the memory).
      expect((await lookup(acme, { sessionId: 'bot-run-7', query: '机械臂怎么复位？' })).statusCode).toBe(200);
      expect((await lookup(acme, { sessionId: 'bot-run-7', query: '机械臂怎么复位？', topK: 20 })).statusCode).toBe(200);
      const mine = await traced(acme, 'bot-run-7');
      expect(mine).toHaveLength(2);
      expect(new Set(mine.map((r) => r.session_id)).size).toBe(1);
      expect(mine[0]).toMatchObject({
        tenant_id: acme.id,
        relevance_level: 'PRECISE',
        dedup_reason: null,
        channel: 'external',
        status: 'PENDING',
        knowledge_searched: true,
      });
      expect(mine[1]).toMatchObject({ tool_call_count: 2 });
      // The same external id in another tenant is that tenant's own external session.
      await lookup(other, { sessionId: 'bot-run-7', query: '复位' });
      const theirs = await traced(other, 'bot-run-7');
      expect(theirs).toHaveLength(1);
      expect(theirs[0]!.session_id).not.toBe(mine[0]!.session_id);
      expect(await traced(acme, 'bot-run-7')).toHaveLength(2);
      // An id that is acme's Arbiter session, used by the other tenant: an external session of the other tenant, acme's session untouched.
      const session = (
        await t.request({ method: 'POST', url: '/api/sessions', headers: cl(acme), payload: { query: 'q', answer: 'a', status: 'SUCCESS' } })
      ).json<{ id: string }>().id;
      await lookup(other, { sessionId: session, query: '复位' });
      expect((await t.db.pool.query('SELECT 1 FROM tool_invocation WHERE session_id = $1', [session])).rowCount).toBe(0);
      expect(await traced(other, session)).toEqual([expect.objectContaining({ tenant_id: other.id, channel: 'external' })]);
      // Monitoring lists the external run with its lookups.
      const list = await t.request({
        method: 'GET',
        url: `/admin/monitoring/conversations/${(await t.db.pool.query<{ conversation_id: string }>('SELECT conversation_id FROM diagnosis_session WHERE id = $1', [mine[0]!.session_id])).rows[0]!.conversation_id}`,
        headers: op(acme),
      });
      expect(list.statusCode).toBe(200);
      expect(list.json<{ sessions: { toolInvocations: unknown[] }[] }>().sessions[0]!.toolInvocations).toHaveLength(2);
    });
  });
});
