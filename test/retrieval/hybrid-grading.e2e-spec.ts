import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { asTenantId } from '@arbiter/common';
import { DEMO_KNOWLEDGE, KnowledgeService, MIN_FIT_PAIRS } from '@arbiter/retrieval';
import { DEMO_GRADING_LABELS as LABELLED } from '../support/demo-grading-labels.js';
import { createTestApp, type TestApp, type TestTenant } from '../support/test-app.js';

interface LookupBody {
  results: { filePath: string; similarity: number; distance: number; relevance: number; source: string }[];
  relevanceLevel: string;
  completenessHint: string | null;
}
interface GradingBody {
  source: string;
  embedder: string;
  features: string[];
  calibration: { weights: number[]; cuts: { reference: number; highlyRelevant: number } };
  fittedAt: string | null;
  metrics: Record<string, number> | null;
}

describe('hybrid lookup and calibrated grading (e2e)', () => {
  let t: TestApp;
  let demo: TestTenant;
  let other: TestTenant;
  const op = (tenant: TestTenant) => ({ 'x-api-key': tenant.operatorKey });
  const lookup = (tenant: TestTenant, query: string, extra: object = {}) =>
    t.request({
      method: 'POST',
      url: '/ai/knowledge/lookup',
      headers: { 'x-api-key': tenant.clientKey },
      payload: { sessionId: `s-${Math.random()}`, query, ...extra },
    });
  const fit = (tenant: TestTenant, payload: unknown) =>
    t.request({ method: 'POST', url: '/admin/knowledge/grading/fit', headers: op(tenant), payload: payload as object });

  beforeAll(async () => {
    t = await createTestApp();
    demo = await t.createTenant();
    other = await t.createTenant();
    const knowledge = t.app.get(KnowledgeService);
    const results = await knowledge.upsertMany(
      asTenantId(demo.id),
      DEMO_KNOWLEDGE.map((d) => ({ ...d, keywords: [...d.keywords], metadata: {}, contentHash: `h-${d.filePath}` })),
    );
    expect(results.every((r) => 'status' in r && r.status === 'created')).toBe(true);
  }, 180_000);
  afterAll(async () => {
    await t?.close();
  });

  it('finds a paraphrase through the lexical index and keeps the seed fields on every result', async () => {
    const res = await lookup(demo, 'how long does a refund take');
    expect(res.statusCode).toBe(200);
    const body = res.json<LookupBody>();
    expect(body.results[0].filePath).toBe('orders/refund-policy.md');
    for (const r of body.results) {
      expect(r.similarity).toBeCloseTo(1 - Math.min(r.distance, 2) / 2, 6); // docs/spec/retrieval.md formula, L2 on unit vectors
      expect(r.relevance).toBeGreaterThanOrEqual(0);
      expect(r.relevance).toBeLessThanOrEqual(1);
    }
    // Results are ordered by calibrated relevance.
    expect([...body.results].sort((a, b) => b.relevance - a.relevance).map((r) => r.filePath)).toEqual(body.results.map((r) => r.filePath));
  });

  it('an exact keyword hit alone does not make a confident answer (the warranty question is not answered with the lubrication article)', async () => {
    const body = (await lookup(demo, '保修期内机械臂的减速机坏了可以免费更换吗')).json<LookupBody>();
    const lubrication = body.results.find((r) => r.filePath === 'maintenance/lubrication-schedule.md');
    expect(lubrication?.source).toBe('L0');
    expect(body.relevanceLevel).not.toBe('PRECISE');
    if (body.results[0].filePath === 'maintenance/lubrication-schedule.md') expect(body.completenessHint).toBe('INSUFFICIENT');
  });

  it('a question with a precise keyword and matching words is PRECISE', async () => {
    const body = (await lookup(demo, '示教器黑屏怎么办')).json<LookupBody>();
    expect(body).toMatchObject({ relevanceLevel: 'PRECISE', completenessHint: null });
    expect(body.results[0]).toMatchObject({ filePath: 'pendant/tp10-black-screen.md', source: 'L0' });
  });

  it.each([['!!! ??? ...'], ['😀😀😀'], ['的 了 吗'], ['the of and']])(
    'a query of only stop words, punctuation or emoji (%s) → 200 INSUFFICIENT',
    async (query) => {
      const res = await lookup(demo, query);
      expect(res.statusCode).toBe(200);
      expect(res.json<LookupBody>().completenessHint).toBe('INSUFFICIENT');
    },
  );

  it('mixed Chinese and English queries work', async () => {
    const body = (await lookup(demo, 'TP-10 示教器 black screen 怎么办')).json<LookupBody>();
    expect(body.results[0].filePath).toBe('pendant/tp10-black-screen.md');
    expect(body.completenessHint).not.toBe('INSUFFICIENT');
  });

  it('callers name the scenario: impact scores results with several matching chunks (docs/spec/evaluation.md §2 发现多处引用)', async () => {
    const paragraph = (n: number) =>
      `Section ${n}. The harness cable of axis ${n} runs through the cable chain; inspect the harness cable for wear every month. ${'Filler text about other topics. '.repeat(12)}`;
    const created = await t.request({
      method: 'POST',
      url: '/admin/knowledge/documents',
      headers: op(other),
      payload: { domain: 'arm', filePath: 'arm/harness.md', title: 'Cable routing', content: [1, 2, 3, 4].map(paragraph).join('\n\n') },
    });
    expect(created.json<{ document: { chunkCount: number } }>().document.chunkCount).toBeGreaterThan(1);
    const impact = await lookup(other, 'harness cable wear', { confidenceProfile: 'impact' });
    const body = impact.json<LookupBody & { results: { matches: number }[]; confidence: { reasons: string[] } }>();
    expect(body.results[0].matches).toBeGreaterThan(1);
    expect(body.confidence.reasons).toContain('发现多处引用');
    const search = (await lookup(other, 'harness cable wear', { confidenceProfile: 'search' })).json<{ confidence: { reasons: string[] } }>();
    expect(search.confidence.reasons).not.toContain('发现多处引用');
  });

  it.each([
    ['empty query', { query: '' }],
    ['blank query', { query: '   ' }],
    ['topK 0', { query: 'refund', topK: 0 }],
    ['topK 21', { query: 'refund', topK: 21 }],
  ])('bad input: %s → 400', async (_name, payload) => {
    const res = await t.request({
      method: 'POST',
      url: '/ai/knowledge/lookup',
      headers: { 'x-api-key': demo.clientKey },
      payload: { sessionId: 's', ...payload },
    });
    expect(res.statusCode).toBe(400);
  });

  describe('grading calibration endpoints', () => {
    it('shows the built-in calibration until a fit', async () => {
      const res = await t.request({ method: 'GET', url: '/admin/knowledge/grading', headers: op(demo) });
      expect(res.statusCode).toBe(200);
      const body = res.json<GradingBody>();
      expect(body).toMatchObject({ source: 'default', fittedAt: null, metrics: null });
      expect(body.calibration.weights).toHaveLength(body.features.length);
      expect((await t.request({ method: 'GET', url: '/admin/knowledge/grading', headers: { 'x-api-key': demo.clientKey } })).statusCode).toBe(403);
    });

    it('rejects too few pairs naming the minimum, and unknown documents listing them; nothing is stored', async () => {
      const few = await fit(demo, { pairs: LABELLED.slice(0, 5) });
      expect(few.statusCode).toBe(400);
      expect(few.json<{ code: string; message: string }>()).toMatchObject({ code: 'TOO_FEW_LABELLED_PAIRS' });
      expect(few.json<{ message: string }>().message).toContain(`at least ${MIN_FIT_PAIRS} pairs`);
      const unknown = await fit(demo, { pairs: [...LABELLED, { query: 'x', filePath: 'nope/missing.md' }] });
      expect(unknown.statusCode).toBe(400);
      expect(unknown.json<{ code: string; message: string }>()).toMatchObject({ code: 'UNKNOWN_LABEL_PATHS' });
      expect(unknown.json<{ message: string }>().message).toContain('nope/missing.md');
      const bad = await fit(demo, { pairs: LABELLED, targets: { maxWrongAnswered: 2 } });
      expect(bad.statusCode).toBe(400);
      expect((await t.request({ method: 'GET', url: '/admin/knowledge/grading', headers: op(demo) })).json<GradingBody>().source).toBe('default');
    });

    it('another tenant cannot fit on these documents (its knowledge base has none of them)', async () => {
      const res = await fit(other, { pairs: LABELLED });
      expect(res.statusCode).toBe(400);
      expect(res.json<{ code: string }>().code).toBe('UNKNOWN_LABEL_PATHS');
    });

    it('a dry run reports before/after without storing; a fit applies; reset goes back to the built-in one', async () => {
      const dry = await fit(demo, { pairs: LABELLED, dryRun: true });
      expect(dry.statusCode).toBe(200);
      const dryBody = dry.json<{ applied: boolean; before: Record<string, number>; after: Record<string, number>; samples: number }>();
      expect(dryBody.applied).toBe(false);
      expect(dryBody.after.lookups).toBe(LABELLED.length);
      expect(dryBody.samples).toBeGreaterThan(LABELLED.length);
      expect((await t.request({ method: 'GET', url: '/admin/knowledge/grading', headers: op(demo) })).json<GradingBody>().source).toBe('default');

      const applied = await fit(demo, { pairs: LABELLED });
      expect(applied.statusCode).toBe(200);
      const view = (await t.request({ method: 'GET', url: '/admin/knowledge/grading', headers: op(demo) })).json<GradingBody>();
      expect(view.source).toBe('fitted');
      expect(view.fittedAt).not.toBeNull();
      expect(view.metrics).toMatchObject({ lookups: LABELLED.length, answerable: 15 });
      // In sample, the fit meets its targets: at most 15 % of right tops insufficient, at most 10 % of wrong tops strong.
      expect(view.metrics!.rightInsufficient).toBeLessThanOrEqual(0.15);
      expect(view.metrics!.wrongAnswered).toBeLessThanOrEqual(0.1);
      const config = (await t.request({ method: 'GET', url: '/admin/knowledge/config', headers: op(demo) })).json<{ calibrationSource: string }>();
      expect(config.calibrationSource).toBe('fitted');
      // The other tenant still grades with the built-in calibration.
      expect((await t.request({ method: 'GET', url: '/admin/knowledge/grading', headers: op(other) })).json<GradingBody>().source).toBe('default');
      // The applied fit is in the audit log (docs/http-edge.md "Audit log"), the dry run is not.
      const audit = await t.request({ method: 'GET', url: '/admin/audit?resourceType=retrieval_grading', headers: op(demo) });
      expect(audit.json<{ items: { action: string; resourceId: string; summary: Record<string, unknown> }[] }>().items).toEqual([
        expect.objectContaining({
          action: 'apply',
          resourceId: view.fittedAt,
          summary: expect.objectContaining({ pairs: LABELLED.length, replaced: null, after: expect.objectContaining({ lookups: LABELLED.length }) }),
        }),
      ]);

      // Another tenant's reset touches only its own calibration; a client key may not reset.
      expect((await t.request({ method: 'DELETE', url: '/admin/knowledge/grading', headers: op(other) })).statusCode).toBe(200);
      expect((await t.request({ method: 'DELETE', url: '/admin/knowledge/grading', headers: { 'x-api-key': demo.clientKey } })).statusCode).toBe(403);
      expect((await t.request({ method: 'GET', url: '/admin/knowledge/grading', headers: op(demo) })).json<GradingBody>().source).toBe('fitted');

      const reset = await t.request({ method: 'DELETE', url: '/admin/knowledge/grading', headers: op(demo) });
      expect(reset.statusCode).toBe(200);
      expect(reset.json<GradingBody>().source).toBe('default');
    });

    it('fusion weights are tenant settings, validated', async () => {
      const ok = await t.request({ method: 'PUT', url: '/admin/knowledge/config', headers: op(demo), payload: { lexicalWeight: 2, rrfK: 30 } });
      expect(ok.statusCode).toBe(200);
      expect(ok.json<{ fusion: Record<string, number> }>().fusion).toEqual({ lexicalWeight: 2, vectorWeight: 1, exactWeight: 0.5, rrfK: 30 });
      for (const payload of [{ lexicalWeight: -1 }, { vectorWeight: 11 }, { rrfK: 1e9 }, { maxL2Distance: 5e-324 }]) {
        expect((await t.request({ method: 'PUT', url: '/admin/knowledge/config', headers: op(demo), payload })).statusCode).toBe(400);
      }
      expect(
        (await t.request({ method: 'GET', url: '/admin/knowledge/config', headers: op(other) })).json<{ fusion: Record<string, number> }>().fusion
          .lexicalWeight,
      ).toBe(1);
      await t.request({ method: 'PUT', url: '/admin/knowledge/config', headers: op(demo), payload: { lexicalWeight: 1, rrfK: 60 } });
    });
  });
});
