import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { JobsService } from '@arbiter/jobs';
import { GROUP_WRITE_CHUNKS, KnowledgeImportJob } from '@arbiter/retrieval';
import { multipartBody, type FormPart } from '../support/multipart.js';
import { testJobContext } from '../support/job-context.js';
import { createTestApp, type TestApp, type TestTenant } from '../support/test-app.js';
import { zipWith } from '../support/zip.js';

// Real files made by other tools (libs/documents/test-fixtures/README.md names their sources and licences).
const fixture = (name: string): Uint8Array => new Uint8Array(readFileSync(new URL(`../../libs/documents/test-fixtures/${name}`, import.meta.url)));
const file = (fileName: string, bytes: Uint8Array, type?: string): FormPart => ({ name: 'file', fileName, bytes, ...(type ? { type } : {}) });

interface FileView {
  fileName: string;
  mediaType: string | null;
  status: string;
  documentId?: string;
  error?: { code: string; message: string };
}
interface Started {
  importId: string;
  jobId: string | null;
  files: FileView[];
}
interface Status {
  status: string;
  total: number;
  done: number;
  counts: Record<string, number>;
  files?: FileView[];
}
interface ErrorBody {
  statusCode: number;
  code?: string;
  message: string;
  details?: { fields?: string[]; files?: FileView[] };
}

/** Issue 22: files in — upload, storage, the import job, re-upload, download, and every bad input at the door. */
describe('knowledge files: upload, import, re-upload, download (e2e)', () => {
  let t: TestApp;
  let acme: TestTenant;
  let other: TestTenant;
  const op = (tenant: TestTenant) => ({ 'x-api-key': tenant.operatorKey });
  const upload = async (tenant: TestTenant, parts: FormPart[], headers: Record<string, string> = {}) => {
    const body = await multipartBody(parts);
    return t.request({ method: 'POST', url: '/admin/knowledge/files', headers: { ...op(tenant), ...body.headers, ...headers }, payload: body.payload });
  };
  const status = async (tenant: TestTenant, id: string) =>
    (await t.request({ method: 'GET', url: `/admin/knowledge/imports/${id}`, headers: op(tenant) })).json<Status>();
  const count = async (table: string, tenant: TestTenant) =>
    Number((await t.db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table} WHERE tenant_id = $1`, [tenant.id])).rows[0]!.n);
  const stored = async (tenant: TestTenant) => ({
    files: await count('knowledge_file', tenant),
    imports: await count('knowledge_import', tenant),
    documents: await count('knowledge_document', tenant),
  });
  const runJobs = () => t.app.get(JobsService).runPending();

  beforeAll(async () => {
    // A small per-file limit, so a real file can be over it: the Chinese PDF fixture is 331,602 bytes.
    // OCR off: a scan stays PDF_NO_TEXT, naming why (knowledge-files-ocr.e2e-spec.ts reads scans with OCR on).
    t = await createTestApp({ UPLOAD_MAX_FILE_BYTES: '300000', UPLOAD_MAX_REQUEST_BYTES: '2000000', UPLOAD_MAX_FILES: '8', OCR_ENABLED: 'off' });
    acme = await t.createTenant();
    other = await t.createTenant();
  }, 240_000);
  afterAll(async () => {
    await t?.close();
  });

  it('imports a PDF, a DOCX, an HTML page, Markdown, GB18030 text and an FAQ sheet: chunks carry page and section', async () => {
    const res = await upload(acme, [
      file('debian-reference-p40-43.en.pdf', fixture('debian-reference-p40-43.en.pdf'), 'text/plain'),
      file('ch08.docx', fixture('debian-reference-ch08.en.docx')),
      file('ch08.html', fixture('debian-reference-ch08.en.html')),
      file('README.md', fixture('debian-reference-README.md')),
      file('第八章.txt', fixture('debian-reference-ch08.zh-cn.gb18030.txt')),
      file('faq-zh.xlsx', fixture('faq-zh.xlsx')),
      { name: 'domain', value: 'debian' },
      { name: 'keywords', value: 'debian, 手册' },
      { name: 'metadata', value: '{"product":"debian","lang":"mixed"}' },
    ]);
    expect(res.statusCode).toBe(202);
    const started = res.json<Started>();
    // The media type comes from the bytes: the PDF was declared text/plain.
    expect(started.files.map((f) => [f.fileName, f.mediaType, f.status])).toEqual([
      ['debian-reference-p40-43.en.pdf', 'application/pdf', 'queued'],
      ['ch08.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'queued'],
      ['ch08.html', 'text/html', 'queued'],
      ['README.md', 'text/markdown', 'queued'],
      ['第八章.txt', 'text/plain', 'queued'],
      ['faq-zh.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'queued'],
    ]);
    expect(await count('knowledge_file', acme)).toBe(6);
    await runJobs();
    const done = await status(acme, started.importId);
    expect(done).toMatchObject({ status: 'succeeded', total: 6, done: 6, counts: { created: 6, pending: 0, failed: 0 } });
    expect(done.files?.every((f) => f.status === 'created' && typeof f.documentId === 'string')).toBe(true);

    const pdf = await t.db.pool.query<{ id: string; page_count: number; media_type: string; metadata: object; keywords: string[]; file_id: string }>(
      `SELECT id, page_count, media_type, metadata, keywords, file_id FROM knowledge_document WHERE tenant_id = $1 AND file_path = $2`,
      [acme.id, 'debian-reference-p40-43.en.pdf'],
    );
    expect(pdf.rows[0]).toMatchObject({
      page_count: 4,
      media_type: 'application/pdf',
      metadata: { product: 'debian', lang: 'mixed' },
      keywords: ['debian', '手册'],
    });
    const chunks = await t.db.pool.query<{ page: number; page_end: number; section: string[] | null; content: string }>(
      'SELECT page, page_end, section, content FROM knowledge_chunk WHERE tenant_id = $1 AND document_id = $2 ORDER BY chunk_index',
      [acme.id, pdf.rows[0]!.id],
    );
    expect(chunks.rows.length).toBeGreaterThan(3);
    for (const c of chunks.rows) {
      expect(c.page).toBeGreaterThanOrEqual(1);
      expect(c.page_end).toBeGreaterThanOrEqual(c.page);
      expect(c.page_end).toBeLessThanOrEqual(4);
    }
    // Sections come from the PDF's outline (§1.2.6–1.2.11 of the manual).
    expect(chunks.rows.some((c) => (c.section ?? []).some((s) => /1\.2\.\d+/.test(s)))).toBe(true);
    const docx = await t.db.pool.query<{ section: string[] | null }>(
      `SELECT c.section FROM knowledge_chunk c JOIN knowledge_document d ON d.tenant_id = c.tenant_id AND d.id = c.document_id
        WHERE d.tenant_id = $1 AND d.file_path = 'ch08.docx' AND c.section IS NOT NULL`,
      [acme.id],
    );
    expect(docx.rows.length).toBeGreaterThan(0);
    // The FAQ sheet: one document per row, the question as title.
    const rows = await t.db.pool.query<{ file_path: string; title: string }>(
      `SELECT file_path, title FROM knowledge_document WHERE tenant_id = $1 AND file_path LIKE 'faq-zh.xlsx#%' ORDER BY file_path`,
      [acme.id],
    );
    expect(rows.rows.length).toBeGreaterThanOrEqual(2);
    expect(await count('knowledge_file', acme)).toBe(6);

    // A lookup finds the manual's text, with its page and section (results are per section of a file, docs/retrieval.md "Sections of files").
    const lookup = await t.request({
      method: 'POST',
      url: '/ai/knowledge/lookup',
      headers: { 'x-api-key': acme.clientKey },
      payload: { sessionId: 'files-e2e', query: 'How do named pipes (FIFOs) work?', topK: 5 },
    });
    expect(lookup.statusCode).toBe(200);
    const found = lookup.json<{ results: { filePath: string; fileName: string | null; page: number | null; section: string[] | null }[] }>().results;
    expect(found[0]).toMatchObject({ filePath: 'debian-reference-p40-43.en.pdf', fileName: 'debian-reference-p40-43.en.pdf', page: 3 });
    expect(found[0].section?.at(-1)).toBe('1.2.8 Named pipes (FIFOs)');
  });

  it('downloads the original bytes with their media type and name; another tenant gets 404', async () => {
    const { rows } = await t.db.pool.query<{ id: string }>(`SELECT id FROM knowledge_document WHERE tenant_id = $1 AND file_path = '第八章.txt'`, [acme.id]);
    const res = await t.request({ method: 'GET', url: `/admin/knowledge/documents/${rows[0]!.id}/file`, headers: op(acme) });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="___.txt"; filename*=UTF-8''${encodeURIComponent('第八章.txt')}`);
    expect(Buffer.compare(res.rawPayload, Buffer.from(fixture('debian-reference-ch08.zh-cn.gb18030.txt')))).toBe(0);
    expect((await t.request({ method: 'GET', url: `/admin/knowledge/documents/${rows[0]!.id}/file`, headers: op(other) })).statusCode).toBe(404);
    expect(
      (await t.request({ method: 'GET', url: `/admin/knowledge/documents/${rows[0]!.id}/file`, headers: { 'x-api-key': acme.clientKey } })).statusCode,
    ).toBe(403);
    // A document posted as JSON has no file.
    const json = await t.request({
      method: 'POST',
      url: '/admin/knowledge/documents',
      headers: op(acme),
      payload: { domain: 'd', filePath: 'notes/plain.md', title: 'Plain', content: 'Posted as JSON.' },
    });
    const id = json.json<{ document: { id: string } }>().document.id;
    const none = await t.request({ method: 'GET', url: `/admin/knowledge/documents/${id}/file`, headers: op(acme) });
    expect(none.statusCode).toBe(404);
    expect(none.json<ErrorBody>().code).toBe('FILE_NOT_FOUND');
  });

  it('a re-upload of identical bytes is unchanged; a changed file replaces its document and re-embeds only changed chunks', async () => {
    const before = await stored(acme);
    const same = (
      await upload(acme, [
        file('README.md', fixture('debian-reference-README.md')),
        { name: 'domain', value: 'debian' },
        { name: 'keywords', value: 'debian, 手册' },
        { name: 'metadata', value: '{"product":"debian","lang":"mixed"}' },
      ])
    ).json<Started>();
    await runJobs();
    expect((await status(acme, same.importId)).files?.[0]).toMatchObject({ fileName: 'README.md', status: 'unchanged' });
    expect((await stored(acme)).files).toBe(before.files);

    const text = Buffer.from(fixture('debian-reference-README.md')).toString('utf8');
    const changed = `${text}\n\n## A new closing section\n\nThis paragraph was added by the second upload of the file.\n`;
    const { rows: old } = await t.db.pool.query<{ id: string; file_id: string; version: number }>(
      `SELECT id, file_id, version FROM knowledge_document WHERE tenant_id = $1 AND file_path = 'README.md'`,
      [acme.id],
    );
    const second = (await upload(acme, [file('README.md', new TextEncoder().encode(changed)), { name: 'domain', value: 'debian' }])).json<Started>();
    await runJobs();
    const outcome = await status(acme, second.importId);
    expect(outcome.files?.[0]).toMatchObject({ fileName: 'README.md', status: 'updated', documentId: old[0]!.id });
    const detail = await t.db.pool.query<{ detail: { chunks: number; embeddedChunks: number } }>(
      'SELECT detail FROM knowledge_import_item WHERE tenant_id = $1 AND import_id = $2',
      [acme.id, second.importId],
    );
    expect(detail.rows[0]!.detail.embeddedChunks).toBeGreaterThan(0);
    expect(detail.rows[0]!.detail.embeddedChunks).toBeLessThan(detail.rows[0]!.detail.chunks);
    const { rows: now } = await t.db.pool.query<{ id: string; file_id: string; version: number }>(
      `SELECT id, file_id, version FROM knowledge_document WHERE tenant_id = $1 AND file_path = 'README.md'`,
      [acme.id],
    );
    expect(now).toHaveLength(1);
    expect(now[0]!.file_id).not.toBe(old[0]!.file_id);
    expect(now[0]!.version).toBe(old[0]!.version + 1);
    // The replaced file is gone: one stored file per document made from a file.
    expect((await t.db.pool.query('SELECT 1 FROM knowledge_file WHERE tenant_id = $1 AND id = $2', [acme.id, old[0]!.file_id])).rowCount).toBe(0);
    expect((await stored(acme)).files).toBe(before.files);
  });

  it('files that cannot be read get an outcome naming the reason; the other files of the upload import', async () => {
    const res = await upload(acme, [
      file('encrypted.pdf', fixture('encrypted.pdf')),
      file('scanned.pdf', fixture('scanned-no-text.pdf')),
      file('truncated.pdf', fixture('truncated.pdf')),
      file('faq-en.csv', fixture('faq-en.csv')),
      file('picture.png', fixture('debian-reference-home.png')),
      file('empty.md', new Uint8Array(0)),
      file('bomb.docx', zipWith([{ name: 'word/document.xml', data: new Uint8Array(2 * 1024 * 1024) }])),
      file('broken.docx', fixture('debian-reference-ch08.en.docx').subarray(0, 4000)),
    ]);
    expect(res.statusCode).toBe(202);
    const started = res.json<Started>();
    expect(started.files.filter((f) => f.status === 'refused').map((f) => [f.fileName, f.error?.code])).toEqual([
      ['picture.png', 'UNSUPPORTED_TYPE'],
      ['empty.md', 'EMPTY_FILE'],
      ['bomb.docx', 'ARCHIVE_TOO_LARGE'],
      ['broken.docx', 'DOCX_INVALID'],
    ]);
    await runJobs();
    const done = await status(acme, started.importId);
    expect(done.status).toBe('succeeded');
    expect(done.files?.map((f) => [f.fileName, f.status, f.error?.code ?? null])).toEqual([
      ['encrypted.pdf', 'failed', 'PDF_ENCRYPTED'],
      ['scanned.pdf', 'failed', 'PDF_NO_TEXT'],
      ['truncated.pdf', 'failed', 'PDF_CORRUPT'],
      ['faq-en.csv', 'created', null],
      ['picture.png', 'refused', 'UNSUPPORTED_TYPE'],
      ['empty.md', 'refused', 'EMPTY_FILE'],
      ['bomb.docx', 'refused', 'ARCHIVE_TOO_LARGE'],
      ['broken.docx', 'refused', 'DOCX_INVALID'],
    ]);
    expect(done.files?.find((f) => f.fileName === 'scanned.pdf')?.error?.message).toBe(
      'The PDF has no text layer (a scan?). OCR is turned off (OCR_ENABLED=off).',
    );
    // The failed files' stored copies are gone; nothing was half-written for them.
    const names = await t.db.pool.query<{ file_name: string }>('SELECT file_name FROM knowledge_file WHERE tenant_id = $1', [acme.id]);
    expect(names.rows.map((r) => r.file_name)).not.toEqual(expect.arrayContaining(['encrypted.pdf']));
    expect(names.rows.map((r) => r.file_name)).toContain('faq-en.csv');
    expect(await count('knowledge_document', other)).toBe(0);
  });

  it('a request whose every file is refused answers 415/413/400 naming each file, and stores nothing', async () => {
    const before = await stored(acme);
    const unsupported = await upload(acme, [file('a.png', fixture('debian-reference-home.png')), file('b.png', fixture('debian-reference-home.png'))]);
    expect(unsupported.statusCode).toBe(415);
    expect(unsupported.json<ErrorBody>().details?.files?.map((f) => [f.fileName, f.error?.code])).toEqual([
      ['a.png', 'UNSUPPORTED_TYPE'],
      ['b.png', 'UNSUPPORTED_TYPE'],
    ]);
    const tooLarge = await upload(acme, [file('zh.pdf', fixture('debian-reference-p40-41.zh-cn.pdf'))]);
    expect(tooLarge.statusCode).toBe(413);
    expect(tooLarge.json<ErrorBody>().details?.files?.[0]).toMatchObject({ fileName: 'zh.pdf', error: { code: 'FILE_TOO_LARGE' } });
    expect(tooLarge.json<ErrorBody>().details?.files?.[0]?.error?.message).toContain('UPLOAD_MAX_FILE_BYTES');
    const empty = await upload(acme, [file('a.txt', new Uint8Array(0))]);
    expect(empty.statusCode).toBe(400);
    expect(empty.json<ErrorBody>().details?.fields).toEqual(['file[0]']);
    const mixedReasons = await upload(acme, [file('a.txt', new Uint8Array(0)), file('b.png', fixture('debian-reference-home.png'))]);
    expect(mixedReasons.statusCode).toBe(400);
    expect(await stored(acme)).toEqual(before);
  });

  it('refuses a malformed upload with a 4xx naming the problem, and writes nothing', async () => {
    const before = await stored(acme);
    const md = file('x.md', new TextEncoder().encode('# X\n\ntext'));
    const cases: [FormPart[], number, string][] = [
      [[md, { name: 'owner', value: 'me' }], 400, 'owner'],
      [[md, { name: 'metadata', value: '[1,2]' }], 400, 'metadata'],
      [[md, { name: 'metadata', value: '{not json' }], 400, 'metadata'],
      [[md, { name: 'domain', value: '   ' }], 400, 'domain'],
      [[md, { name: 'domain', value: 'd'.repeat(101) }], 400, 'domain'],
      [[md, md], 400, 'file[1]'],
      [[{ name: 'attachment', fileName: 'x.md', bytes: new Uint8Array([65]) }], 400, 'attachment'],
      [[{ name: 'domain', value: 'only fields' }], 400, 'file'],
    ];
    for (const [parts, code, field] of cases) {
      const res = await upload(acme, parts);
      expect([res.statusCode, res.json<ErrorBody>().details?.fields]).toEqual([code, expect.arrayContaining([field])]);
    }
    const nine = await upload(
      acme,
      Array.from({ length: 9 }, (_, i) => file(`f${i}.md`, new TextEncoder().encode(`# F${i}`))),
    );
    expect(nine.statusCode).toBe(400);
    expect(nine.json<ErrorBody>().message).toContain('at most 8 files');
    // JSON is not an upload; multipart is refused by every other route.
    const json = await t.request({ method: 'POST', url: '/admin/knowledge/files', headers: op(acme), payload: { file: 'x' } });
    expect(json.statusCode).toBe(415);
    const body = await multipartBody([md]);
    const elsewhere = await t.request({ method: 'POST', url: '/admin/knowledge/documents', headers: { ...op(acme), ...body.headers }, payload: body.payload });
    expect(elsewhere.statusCode).toBe(415);
    // The request limit holds for multipart too (UPLOAD_MAX_REQUEST_BYTES = 2,000,000 here).
    const big = await upload(acme, [file('big.txt', new Uint8Array(2_100_000).fill(97))]);
    expect(big.statusCode).toBe(413);
    expect(big.json<ErrorBody>().code).toBe('BODY_TOO_LARGE');
    expect(await stored(acme)).toEqual(before);
  });

  it('credentials before the body: no key 401, a client key 403, another tenant sees nothing', async () => {
    const body = await multipartBody([file('x.md', new TextEncoder().encode('# X'))]);
    expect((await t.request({ method: 'POST', url: '/admin/knowledge/files', headers: body.headers, payload: body.payload })).statusCode).toBe(401);
    expect(
      (await t.request({ method: 'POST', url: '/admin/knowledge/files', headers: { ...body.headers, 'x-api-key': acme.clientKey }, payload: body.payload }))
        .statusCode,
    ).toBe(403);
    const started = (await upload(acme, [file('tenant.md', new TextEncoder().encode('# Only acme'))])).json<Started>();
    expect((await t.request({ method: 'GET', url: `/admin/knowledge/imports/${started.importId}`, headers: op(other) })).statusCode).toBe(404);
    await runJobs();
    expect(await count('knowledge_document', other)).toBe(0);
  });

  it('honours Idempotency-Key: a retry answers the first upload, other files with the same key get 422', async () => {
    const parts = [file('idem.md', new TextEncoder().encode('# Idempotent\n\nUploaded once.'))];
    const first = await upload(acme, parts, { 'idempotency-key': 'upload-1' });
    expect(first.statusCode).toBe(202);
    const before = await stored(acme);
    const retry = await upload(acme, parts, { 'idempotency-key': 'upload-1' });
    expect(retry.statusCode).toBe(202);
    expect(retry.json<Started>().importId).toBe(first.json<Started>().importId);
    expect(await stored(acme)).toEqual(before);
    const otherFiles = await upload(acme, [file('idem.md', new TextEncoder().encode('# Something else'))], { 'idempotency-key': 'upload-1' });
    expect(otherFiles.statusCode).toBe(422);
    expect(otherFiles.json<ErrorBody>().code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect((await upload(acme, parts, { 'idempotency-key': 'bad key with spaces' })).statusCode).toBe(400);
    // The key is the tenant's own: another tenant may use it.
    expect((await upload(other, parts, { 'idempotency-key': 'upload-1' })).json<Started>().importId).not.toBe(first.json<Started>().importId);
    expect(await stored(acme)).toEqual(before);
  });

  it('resumes after a crash at the first file without an outcome, writing nothing twice', async () => {
    const started = (
      await upload(acme, [
        file('crash-1.md', new TextEncoder().encode('# One\n\nFirst file.')),
        file('crash-2.md', new TextEncoder().encode('# Two\n\nSecond file.')),
      ])
    ).json<Started>();
    const job = t.app.get(KnowledgeImportJob);
    const context = (onProgress: () => void) => testJobContext(acme.id, { importId: started.importId }, onProgress);
    await expect(
      job.run(
        context(() => {
          throw new Error('killed');
        }),
      ),
    ).rejects.toThrow('killed');
    // The process died right after the first file's outcome was recorded, before its progress.
    expect((await status(acme, started.importId)).counts).toMatchObject({ created: 1, pending: 1 });
    await job.run(context(() => undefined));
    const done = await status(acme, started.importId);
    expect(done.files?.map((f) => [f.fileName, f.status])).toEqual([
      ['crash-1.md', 'created'],
      ['crash-2.md', 'created'],
    ]);
    const docs = await t.db.pool.query(`SELECT 1 FROM knowledge_document WHERE tenant_id = $1 AND file_path LIKE 'crash-%'`, [acme.id]);
    expect(docs.rowCount).toBe(2);
  });

  it("a crash in the middle of a large file's write in groups: the part written stays hidden, the resumed job writes the file once", async () => {
    const tenant = await t.createTenant();
    // 450 top-level sections: 450 chunks, several groups of GROUP_WRITE_CHUNKS (docs/hot-paths.md "A large file's write in groups").
    const markdown = Array.from({ length: 450 }, (_, k) => `# Topic ${k}\n\nThe quokka procedure, step ${k}: press the blue button ${k} times.`).join('\n\n');
    const started = (await upload(tenant, [file('large-manual.md', new TextEncoder().encode(markdown))])).json<Started>();
    const writing = async () =>
      (
        await t.db.pool.query<{ chunks: string }>(
          `SELECT count(c.*) AS chunks FROM knowledge_document d JOIN knowledge_chunk c ON c.tenant_id = d.tenant_id AND c.document_id = d.id
            WHERE d.tenant_id = $1 AND d.writing`,
          [tenant.id],
        )
      ).rows[0]!.chunks;
    const job = t.app.get(KnowledgeImportJob);
    const context = testJobContext(tenant.id, { importId: started.importId }, () => undefined);
    // The process dies right after the first group's transaction.
    const dying = {
      ...context,
      step: async <T>(work: () => Promise<T>): Promise<T> => {
        const result = await work();
        if (Number(await writing()) > 0) throw new Error('killed');
        return result;
      },
    };
    await expect(job.run(dying)).rejects.toThrow('killed');
    expect(Number(await writing())).toBe(GROUP_WRITE_CHUNKS);
    const lookup = async () =>
      (
        await t.request({
          method: 'POST',
          url: '/ai/knowledge/lookup',
          headers: { 'x-api-key': tenant.clientKey },
          payload: { sessionId: 'group-write', query: 'quokka procedure blue button', topK: 5 },
        })
      ).json<{ results: { filePath: string }[] }>().results;
    expect(await lookup()).toEqual([]);
    const listed = await t.request({ method: 'GET', url: '/admin/knowledge/documents', headers: op(tenant) });
    expect(listed.json<{ items: unknown[] }>().items).toEqual([]);

    await job.run(context);
    const done = await status(tenant, started.importId);
    expect(done.files?.map((f) => [f.fileName, f.status])).toEqual([['large-manual.md', 'created']]);
    const docs = await t.db.pool.query<{ chunk_count: number; writing: boolean }>('SELECT chunk_count, writing FROM knowledge_document WHERE tenant_id = $1', [
      tenant.id,
    ]);
    expect(docs.rows).toEqual([{ chunk_count: 450, writing: false }]);
    expect(await count('knowledge_chunk', tenant)).toBe(450);
    const stats = await t.db.pool.query<{ chunk_count: string }>('SELECT chunk_count FROM knowledge_lexical_stats WHERE tenant_id = $1', [tenant.id]);
    expect(Number(stats.rows[0]!.chunk_count)).toBe(450);
    expect((await lookup())[0]?.filePath).toBe('large-manual.md');
  });
});
