import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash, randomUUID } from 'node:crypto';
import { asTenantId } from '@arbiter/common';
import { KnowledgeService, normalizeDocument } from '@arbiter/retrieval';
import { createTestApp, type TestApp, type TestTenant } from '../support/test-app.js';

/**
 * Files in, the lookup side (docs/retrieval.md "Sections of files", "Metadata filters"; docs/documents.md
 * "Chunks"), over HTTP: results per section of a file with their location, chunk review and edits, metadata
 * filters on lookups and chat, and chat references that say where they came from.
 */
interface ResultItem {
  documentId: string;
  filePath: string;
  content: string;
  fileName: string | null;
  page: number | null;
  pageEnd: number | null;
  section: string[] | null;
}
interface LookupBody {
  results: ResultItem[];
  dedupReason: string | null;
}
interface ChunkBody {
  chunkIndex: number;
  content: string;
  page: number | null;
  pageEnd: number | null;
  section: string[] | null;
  disabled: boolean;
}
interface ErrorBody {
  statusCode: number;
  details?: { fields?: string[] };
}
interface ChatBody {
  sessionId: string;
  reply: string;
  references: { filePath: string; title: string; fileName: string | null; page: number | null; pageEnd: number | null; section: string[] | null }[];
}

const MANUAL = 'Editor-Manual.pdf';
const SECTIONS = [
  {
    section: ['1 Getting started', '1.4.7 Setting a default editor'],
    page: 48,
    content: 'To set a default editor, open Settings, Editor and choose the default editor from the list. The default editor opens every new file.',
  },
  {
    section: ['1 Getting started', '1.4.8 Choosing an editor theme'],
    page: 49,
    content: 'To choose an editor theme, open Settings, Editor, Theme. The theme changes the colours of the default editor.',
  },
  {
    section: ['2 Troubleshooting', '2.1 The editor does not start'],
    page: 55,
    pageEnd: 56,
    content: 'If the editor does not start, delete the editor cache folder and restart the application.',
  },
];

describe('lookup over files: sections, chunk edits, metadata filters (e2e)', () => {
  let t: TestApp;
  let acme: TestTenant;
  let other: TestTenant;
  let manualId: string;
  const op = (tenant: TestTenant) => ({ 'x-api-key': tenant.operatorKey });
  const cl = (tenant: TestTenant) => ({ 'x-api-key': tenant.clientKey });
  const lookup = (tenant: TestTenant, payload: Record<string, unknown>) =>
    t.request({ method: 'POST', url: '/ai/knowledge/lookup', headers: cl(tenant), payload });
  const found = async (tenant: TestTenant, payload: Record<string, unknown>): Promise<LookupBody> => {
    const res = await lookup(tenant, payload);
    expect([res.statusCode, res.body.slice(0, 300)]).toEqual([200, expect.any(String)]);
    return res.json<LookupBody>();
  };
  const listChunks = (tenant: TestTenant, id: string, query = '', key: 'operatorKey' | 'clientKey' = 'operatorKey') =>
    t.request({ method: 'GET', url: `/admin/knowledge/documents/${id}/chunks${query}`, headers: { 'x-api-key': tenant[key] } });
  const patchChunk = (tenant: TestTenant, id: string, index: string | number, payload: unknown, key: 'operatorKey' | 'clientKey' = 'operatorKey') =>
    t.request({
      method: 'PATCH',
      url: `/admin/knowledge/documents/${id}/chunks/${index}`,
      headers: { 'x-api-key': tenant[key] },
      payload: payload as Record<string, unknown>,
    });
  const chat = (tenant: TestTenant, payload: Record<string, unknown>) => t.request({ method: 'POST', url: '/ai/chat', headers: cl(tenant), payload });
  /** What a rejected request must leave alone. */
  const writes = async () =>
    (
      await t.db.pool.query<{ chunks: string; inv: number; mem: number; sessions: number; settings: string }>(
        `SELECT (SELECT string_agg(chunk_index || ':' || content || ':' || (disabled_at IS NOT NULL), '|' ORDER BY document_id, chunk_index, embedding_model) FROM knowledge_chunk) AS chunks,
                (SELECT count(*)::int FROM tool_invocation) AS inv, (SELECT count(*)::int FROM retrieval_memory) AS mem,
                (SELECT count(*)::int FROM diagnosis_session) AS sessions,
                (SELECT string_agg(default_filter::text, '|' ORDER BY tenant_id) FROM retrieval_settings) AS settings`,
      )
    ).rows[0];

  beforeAll(async () => {
    t = await createTestApp();
    acme = await t.createTenant();
    other = await t.createTenant();
    // The upload API stores the file; its import job then upserts the document with chunks cut by the file's structure (`prepared`).
    const fileId = randomUUID();
    await t.db.pool.query(
      `INSERT INTO knowledge_file (tenant_id, id, file_name, media_type, byte_size, sha256, bytes) VALUES ($1, $2, $3, 'application/pdf', 3, $4, '\\x616263')`,
      [acme.id, fileId, MANUAL, createHash('sha256').update('abc').digest('hex')],
    );
    const manualDoc = {
      ...normalizeDocument({
        domain: 'editor',
        filePath: MANUAL,
        title: 'Editor manual',
        content: SECTIONS.map((s) => s.content).join('\n\n'),
        metadata: { product: 'editor', lang: 'en' },
      }),
      source: { fileId, mediaType: 'application/pdf', pageCount: 60 },
    };
    const [manual] = await t.app.get(KnowledgeService).upsertMany(asTenantId(acme.id), [manualDoc], { prepared: new Map([[MANUAL, SECTIONS]]) });
    if (!manual || manual instanceof Error) throw manual ?? new Error('no result');
    manualId = manual.document.id;
    for (const doc of [
      {
        domain: 'printer',
        filePath: 'printer/jam.md',
        title: 'Paper jam',
        content: 'Open the printer front cover and remove the jammed paper.',
        metadata: { product: 'printer', lang: 'en' },
      },
      {
        domain: 'printer',
        filePath: 'printer/toner.md',
        title: 'Toner',
        content: 'Replace the toner cartridge when the printer says toner low.',
        metadata: { product: 'printer', lang: 'de' },
      },
    ]) {
      const res = await t.request({ method: 'POST', url: '/admin/knowledge/documents', headers: op(acme), payload: doc });
      expect(res.statusCode).toBe(201);
    }
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  describe('results per section of a file', () => {
    it('one file fills several results, each with fileName, page, pageEnd and section; JSON documents carry nulls; the tool invocation records them', async () => {
      const body = await found(acme, { sessionId: 'sections-1', query: 'how do I set the default editor', topK: 5 });
      const manual = body.results.filter((r) => r.filePath === MANUAL);
      expect(manual.length).toBeGreaterThanOrEqual(2);
      expect(new Set(manual.map((r) => JSON.stringify(r.section))).size).toBe(manual.length);
      expect(body.results[0]).toMatchObject({ fileName: MANUAL, page: 48, pageEnd: 48, section: SECTIONS[0].section, content: SECTIONS[0].content });
      const printer = body.results.find((r) => r.filePath.startsWith('printer/'));
      if (printer) expect(printer).toMatchObject({ fileName: null, page: null, pageEnd: null, section: null });
      const inv = await t.db.pool.query<{ retrieval_details: { result_locations: unknown[]; result_file_paths: string[] } }>(
        `SELECT retrieval_details FROM tool_invocation WHERE tenant_id = $1 AND arguments->>'query' = 'how do I set the default editor' ORDER BY created_at DESC LIMIT 1`,
        [acme.id],
      );
      expect(inv.rows[0].retrieval_details.result_locations[0]).toEqual({ file_name: MANUAL, page: 48, page_end: 48, section: SECTIONS[0].section });
      expect(inv.rows[0].retrieval_details.result_locations).toHaveLength(body.results.length);
    });

    it('the action memory keys on (file, section): a repeat in the session gets the manual’s other sections, not nothing', async () => {
      const first = await found(acme, { sessionId: 'sections-2', query: 'set the default editor', topK: 1 });
      expect(first.results).toEqual([expect.objectContaining({ fileName: MANUAL, section: SECTIONS[0].section })]);
      const second = await found(acme, { sessionId: 'sections-2', query: 'set the default editor', topK: 1 });
      expect(second.dedupReason).toBeNull();
      expect(second.results).toHaveLength(1);
      expect(second.results[0].section).not.toEqual(SECTIONS[0].section);
      const memory = await t.db.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM retrieval_memory WHERE tenant_id = $1 AND session_id = 'sections-2' AND file_path = $2 AND section_key <> ''`,
        [acme.id, MANUAL],
      );
      expect(memory.rows[0].n).toBe(second.results[0].fileName === MANUAL ? 2 : 1);
    });
  });

  describe('chunks of a document', () => {
    it('lists every chunk in order with its location, a page at a time', async () => {
      const all = await listChunks(acme, manualId);
      expect(all.statusCode).toBe(200);
      expect(all.json<{ items: ChunkBody[] }>().items).toEqual(
        SECTIONS.map((s, i) => ({ chunkIndex: i, content: s.content, page: s.page, pageEnd: s.pageEnd ?? s.page, section: s.section, disabled: false })),
      );
      const page1 = (await listChunks(acme, manualId, '?limit=2')).json<{ items: ChunkBody[]; nextCursor: string | null }>();
      expect(page1.items.map((c) => c.chunkIndex)).toEqual([0, 1]);
      const page2 = (await listChunks(acme, manualId, `?limit=2&cursor=${page1.nextCursor}`)).json<{ items: ChunkBody[]; nextCursor: string | null }>();
      expect(page2).toEqual({ items: [expect.objectContaining({ chunkIndex: 2 })], nextCursor: null });
      expect((await listChunks(acme, manualId, '?cursor=bm9wZQ')).statusCode).toBe(400);
    });

    it('edit → the lookup finds the new text and not the old', async () => {
      const res = await patchChunk(acme, manualId, 2, { content: 'If the editor freezes on launch, hold Shift while starting it to open the safe mode.' });
      expect(res.statusCode).toBe(200);
      expect(res.json<ChunkBody>()).toEqual({
        chunkIndex: 2,
        content: 'If the editor freezes on launch, hold Shift while starting it to open the safe mode.',
        page: 55,
        pageEnd: 56,
        section: SECTIONS[2].section,
        disabled: false,
      });
      const fresh = await found(acme, { sessionId: 'edit-1', query: 'editor freezes on launch safe mode' });
      expect(fresh.results[0]).toMatchObject({ fileName: MANUAL, section: SECTIONS[2].section, content: expect.stringContaining('safe mode') });
      const old = await found(acme, { sessionId: 'edit-2', query: 'delete the editor cache folder', topK: 20 });
      expect(old.results.filter((r) => r.content.includes('cache folder'))).toEqual([]);
    });

    it('disable → never returned; re-enable → returned again', async () => {
      const disabled = await patchChunk(acme, manualId, 0, { disabled: true });
      expect(disabled.json<ChunkBody>()).toMatchObject({ chunkIndex: 0, disabled: true });
      expect((await listChunks(acme, manualId)).json<{ items: ChunkBody[] }>().items.map((c) => c.disabled)).toEqual([true, false, false]);
      for (const query of [
        'how do I set the default editor',
        'To set a default editor, open Settings, Editor and choose the default editor from the list',
        'default editor',
      ]) {
        const body = await found(acme, { sessionId: `disabled-${query}`, query, topK: 20 });
        expect(body.results.filter((r) => JSON.stringify(r.section) === JSON.stringify(SECTIONS[0].section))).toEqual([]);
      }
      expect((await patchChunk(acme, manualId, 0, { disabled: false })).json<ChunkBody>()).toMatchObject({ disabled: false });
      const back = await found(acme, { sessionId: 'enabled-again', query: 'how do I set the default editor' });
      expect(back.results[0]).toMatchObject({ fileName: MANUAL, section: SECTIONS[0].section });
    });

    it.each([
      { name: 'blank content', index: '1', body: { content: '   ' }, fields: ['content'] },
      { name: 'content not a string', index: '1', body: { content: 5 }, fields: ['content'] },
      { name: 'content over 16,384 characters', index: '1', body: { content: 'x'.repeat(16_385) }, fields: ['content'] },
      { name: 'disabled not a boolean', index: '1', body: { disabled: 'yes' }, fields: ['disabled'] },
      { name: 'an empty body', index: '1', body: {}, fields: ['content', 'disabled'] },
      { name: 'an unknown field', index: '1', body: { disabled: true, page: 3 }, fields: ['page'] },
      { name: 'a chunk index that is not a number', index: 'first', body: { disabled: true }, fields: ['chunkIndex'] },
      { name: 'a negative chunk index', index: '-1', body: { disabled: true }, fields: ['chunkIndex'] },
    ])('$name → 400 naming $fields, nothing written', async ({ index, body, fields }) => {
      const before = await writes();
      const res = await patchChunk(acme, manualId, index, body);
      expect(res.statusCode).toBe(400);
      expect(res.json<ErrorBody>().details?.fields).toEqual(fields);
      expect(await writes()).toEqual(before);
    });

    it('unknown chunk or document → 404; another tenant’s document → 404 for list and edit, nothing written', async () => {
      const before = await writes();
      expect((await patchChunk(acme, manualId, 99, { disabled: true })).statusCode).toBe(404);
      expect((await patchChunk(acme, randomUUID(), 0, { disabled: true })).statusCode).toBe(404);
      expect((await listChunks(acme, randomUUID())).statusCode).toBe(404);
      expect((await listChunks(other, manualId)).statusCode).toBe(404);
      expect((await patchChunk(other, manualId, 0, { disabled: true })).statusCode).toBe(404);
      expect((await patchChunk(other, manualId, 0, { content: 'hijacked' })).statusCode).toBe(404);
      expect(await writes()).toEqual(before);
    });

    it('a client key → 403 for list and edit, nothing written', async () => {
      const before = await writes();
      expect((await listChunks(acme, manualId, '', 'clientKey')).statusCode).toBe(403);
      expect((await patchChunk(acme, manualId, 0, { disabled: true }, 'clientKey')).statusCode).toBe(403);
      expect(await writes()).toEqual(before);
    });
  });

  describe('metadata filters', () => {
    it.each([
      { filter: { product: 'printer' }, paths: ['printer/jam.md', 'printer/toner.md'] },
      { filter: { product: 'printer', lang: 'de' }, paths: ['printer/toner.md'] },
      { filter: { product: ['editor', 'nothing'] }, paths: [MANUAL] },
      { filter: { product: 'scanner' }, paths: [] },
    ])('lookup with filter $filter returns only matching documents', async ({ filter, paths }) => {
      const body = await found(acme, { sessionId: `filter-${JSON.stringify(filter)}`, query: 'printer paper jam editor settings toner', topK: 20, filter });
      expect([...new Set(body.results.map((r) => r.filePath))].sort()).toEqual(paths);
    });

    it.each([
      { name: 'not an object', filter: 'product=printer', fields: ['filter'] },
      { name: 'an array', filter: ['printer'], fields: ['filter'] },
      { name: 'a nested object value', filter: { product: { eq: 'printer' } }, fields: ['filter.product'] },
      { name: 'an empty array', filter: { product: [] }, fields: ['filter.product'] },
      { name: 'a null value', filter: { product: null }, fields: ['filter.product'] },
      { name: 'a bad key', filter: { 'product name': 'printer' }, fields: ['filter.product name'] },
      { name: 'more than 20 keys', filter: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 1])), fields: ['filter'] },
    ])('lookup with $name → 400 naming $fields, nothing written', async ({ filter, fields }) => {
      const before = await writes();
      const res = await lookup(acme, { sessionId: 'bad-filter', query: 'paper jam', filter });
      expect(res.statusCode).toBe(400);
      expect(res.json<ErrorBody>().details?.fields).toEqual(fields);
      expect(await writes()).toEqual(before);
    });

    it('the tenant default filter applies to chat lookups, not to the lookup API; a chat request’s filter replaces it; bad ones are 400', async () => {
      const before = await writes();
      const bad = await t.request({ method: 'PUT', url: '/admin/knowledge/config', headers: op(acme), payload: { defaultFilter: { product: [] } } });
      expect([bad.statusCode, bad.json<ErrorBody>().details?.fields]).toEqual([400, ['defaultFilter.product']]);
      expect(await writes()).toEqual(before);
      const set = await t.request({ method: 'PUT', url: '/admin/knowledge/config', headers: op(acme), payload: { defaultFilter: { product: 'printer' } } });
      expect(set.statusCode).toBe(200);
      expect(set.json()).toMatchObject({ defaultFilter: { product: 'printer' } });
      try {
        const viaChat = await chat(acme, { message: 'How do I set the default editor?' });
        expect(viaChat.statusCode).toBe(200);
        expect(viaChat.json<ChatBody>().references.filter((r) => r.filePath === MANUAL)).toEqual([]);
        const args = await t.db.pool.query<{ arguments: { filter?: unknown } }>('SELECT arguments FROM tool_invocation WHERE session_id = $1', [
          viaChat.json<ChatBody>().sessionId,
        ]);
        expect(args.rows.map((r) => r.arguments.filter)).toEqual([{ product: 'printer' }]);
        const api = await found(acme, { sessionId: 'no-default', query: 'how do I set the default editor' });
        expect(api.results[0]).toMatchObject({ fileName: MANUAL });
        const overridden = await chat(acme, { message: 'How do I set the default editor?', filter: { product: 'editor' } });
        expect(overridden.json<ChatBody>().references[0]).toMatchObject({ fileName: MANUAL });
      } finally {
        const reset = await t.request({ method: 'PUT', url: '/admin/knowledge/config', headers: op(acme), payload: { defaultFilter: {} } });
        expect(reset.json()).toMatchObject({ defaultFilter: {} });
      }
    });

    it('chat with a bad filter → 400 naming it, no session written', async () => {
      const before = await writes();
      const res = await chat(acme, { message: 'How do I set the default editor?', filter: { product: { $ne: 'x' } } });
      expect(res.statusCode).toBe(400);
      expect(res.json<ErrorBody>().details?.fields).toEqual(['filter.product']);
      expect(await writes()).toEqual(before);
    });
  });

  describe('grade fit labels of files (docs/retrieval.md "Fitting the grade")', () => {
    interface Pair {
      query: string;
      filePath: string | null;
      pages?: unknown;
      section?: unknown;
    }
    interface FitBody {
      applied: boolean;
      before: { answerable: number; hitAt1: number };
    }
    const manualQuestions: { query: string; page: number; section: string[] }[] = [
      { query: 'how do I set the default editor', page: 48, section: SECTIONS[0].section },
      { query: 'which editor opens new files by default', page: 48, section: SECTIONS[0].section },
      { query: 'change the colours of the editor', page: 49, section: SECTIONS[1].section },
      { query: 'pick a different editor theme', page: 49, section: SECTIONS[1].section },
      { query: 'the editor does not start', page: 55, section: SECTIONS[2].section },
      { query: 'editor will not open, what should I delete', page: 56, section: SECTIONS[2].section },
    ];
    const documentQuestions: Pair[] = [
      { query: 'paper is stuck in the printer', filePath: 'printer/jam.md' },
      { query: 'remove jammed paper from the front cover', filePath: 'printer/jam.md' },
      { query: 'printer says toner low', filePath: 'printer/toner.md' },
      { query: 'replace the toner cartridge', filePath: 'printer/toner.md' },
    ];
    const unanswerable: Pair[] = [
      'how do I reset my password',
      'what is the price of the pro plan',
      'do you ship to Canada',
      'how to export my data',
      'can I use it offline',
      'where do I find my invoice',
      'how do I cancel my subscription',
      'is there a mobile app',
      'what are your opening hours',
      'how do I reach a human',
    ].map((query) => ({ query, filePath: null }));
    const pairs = (manual: (q: (typeof manualQuestions)[number]) => Partial<Pair>): Pair[] => [
      ...manualQuestions.map((q) => ({ query: q.query, filePath: MANUAL, ...manual(q) })),
      ...documentQuestions,
      ...unanswerable,
    ];
    const fit = (tenant: TestTenant, body: unknown) =>
      t.request({ method: 'POST', url: '/admin/knowledge/grading/fit', headers: op(tenant), payload: body as Record<string, unknown> });
    const grading = async () =>
      (await t.db.pool.query<{ g: string }>(`SELECT coalesce(string_agg(grading::text, '|' ORDER BY tenant_id), '') AS g FROM retrieval_settings`)).rows[0].g;

    it('a manual labelled by its path alone is refused (400 naming each pair), and nothing is written', async () => {
      const before = await grading();
      const res = await fit(acme, { pairs: pairs(() => ({})) });
      expect(res.statusCode).toBe(400);
      const body = res.json<ErrorBody & { code: string; details: { fields: string[]; filePaths: string[] } }>();
      expect(body.code).toBe('INVALID_LABEL_LOCATION');
      expect(body.details.fields).toEqual(manualQuestions.map((_, i) => `pairs[${i}]`));
      expect(body.details.filePaths).toEqual([MANUAL]);
      expect(await grading()).toBe(before);
    });

    it.each([
      { name: 'pages without a document', change: (p: Pair[]) => (p[10] = { ...p[10], pages: [3] }), field: 'pairs[10].pages', code: 'INVALID_LABEL_LOCATION' },
      {
        name: 'a section without a document',
        change: (p: Pair[]) => (p[11] = { ...p[11], section: ['1'] }),
        field: 'pairs[11].section',
        code: 'INVALID_LABEL_LOCATION',
      },
      { name: 'page 0', change: (p: Pair[]) => (p[0] = { ...p[0], pages: [0] }), field: 'pairs[0].pages', code: 'VALIDATION_FAILED' },
      {
        name: 'a page that is not a whole number',
        change: (p: Pair[]) => (p[1] = { ...p[1], pages: [4.5] }),
        field: 'pairs[1].pages',
        code: 'VALIDATION_FAILED',
      },
      { name: 'pages that are not an array', change: (p: Pair[]) => (p[2] = { ...p[2], pages: '48' }), field: 'pairs[2].pages', code: 'VALIDATION_FAILED' },
      { name: 'a blank heading', change: (p: Pair[]) => (p[3] = { ...p[3], section: [' '] }), field: 'pairs[3].section', code: 'VALIDATION_FAILED' },
    ])('$name → 400 naming $field, nothing written', async ({ change, field, code }) => {
      const before = await grading();
      const body = pairs((q) => ({ pages: [q.page] }));
      change(body);
      const res = await fit(acme, { pairs: body });
      expect(res.statusCode).toBe(400);
      const error = res.json<{ code: string; details: { fields: string[] } }>();
      expect([error.code, error.details.fields]).toEqual([code, expect.arrayContaining([field])]);
      expect(await grading()).toBe(before);
    });

    it('pages and sections say which results are right: a page no section is on makes no manual result right, the whole manual every one', async () => {
      const hitAt1 = async (manual: (q: (typeof manualQuestions)[number]) => Partial<Pair>) => {
        const res = await fit(acme, { pairs: pairs(manual), dryRun: true });
        expect([res.statusCode, res.body.slice(0, 300)]).toEqual([200, expect.any(String)]);
        const body = res.json<FitBody>();
        expect([body.applied, body.before.answerable]).toEqual([false, 10]);
        return body.before.hitAt1;
      };
      const exact = await hitAt1((q) => ({ pages: [q.page] }));
      const bySection = await hitAt1((q) => ({ section: q.section }));
      const nowhere = await hitAt1(() => ({ pages: [999] }));
      const anywhere = await hitAt1(() => ({ pages: [1, 48, 49, 55, 56] }));
      const wrongChapter = await hitAt1((q) => ({ section: q.page === 55 || q.page === 56 ? ['1 Getting started'] : ['2 Troubleshooting'] }));
      // Only the four printer questions can be right when no manual section is.
      expect(nowhere).toBeLessThanOrEqual(0.4);
      expect(wrongChapter).toBeLessThanOrEqual(0.4);
      expect(exact).toBeGreaterThan(nowhere);
      expect(bySection).toBe(exact);
      expect(anywhere).toBeGreaterThanOrEqual(exact);
    });

    it("another tenant cannot label this tenant's manual", async () => {
      const res = await fit(other, { pairs: pairs((q) => ({ pages: [q.page] })) });
      expect(res.statusCode).toBe(400);
      expect(res.json<{ code: string }>().code).toBe('UNKNOWN_LABEL_PATHS');
    });
  });

  describe('chat references', () => {
    it('carry the file name, page and section, in the response, the reply and the stored session', async () => {
      const res = await chat(acme, { message: 'How do I set the default editor?' });
      expect(res.statusCode).toBe(200);
      const body = res.json<ChatBody>();
      expect(body.references[0]).toEqual(
        expect.objectContaining({ filePath: MANUAL, fileName: MANUAL, page: 48, pageEnd: 48, section: SECTIONS[0].section, title: 'Editor manual' }),
      );
      expect(body.reply).toContain(`${MANUAL}, p. 48, § 1.4.7 Setting a default editor`);
      const stored = await t.db.pool.query<{ source_references: Record<string, unknown>[] }>('SELECT source_references FROM diagnosis_session WHERE id = $1', [
        body.sessionId,
      ]);
      expect(stored.rows[0].source_references[0]).toMatchObject({ filePath: MANUAL, fileName: MANUAL, page: 48, pageEnd: 48, section: SECTIONS[0].section });
      const view = await t.request({ method: 'GET', url: `/api/sessions/${body.sessionId}`, headers: cl(acme) });
      expect(view.json<{ references: Record<string, unknown>[] }>().references[0]).toMatchObject({ fileName: MANUAL, page: 48, section: SECTIONS[0].section });
    });
  });
});
