import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  apiCall,
  launchChromium,
  openPage,
  seriousA11yViolations,
  signIn,
  startConsoleApi,
  uploadAndImport,
  type ConsoleApi,
} from './support/console-harness.js';
import { itSavingScreenshots } from './support/failure-screenshots.js';
import { containsText, hasCount, hasValue, visible } from './support/waits.js';

// A document's view in the console (docs/console.md "Knowledge"): a real PDF uploaded through the API, its chunks
// with pages and sections, edited and disabled in the browser and checked through the API (Debian's chromium
// against the real API on the embedded database). On failure the page is saved under test/console/screenshots/.
let activePage: Page | null = null;

const it = itSavingScreenshots('chunks-', () => activePage);

/** Pages 40–43 of the Debian Reference (§1.2.6–1.2.11, with its outline): libs/documents/test-fixtures/README.md. */
const PDF_NAME = 'debian-reference-p40-43.en.pdf';
const PDF = readFileSync(`libs/documents/test-fixtures/${PDF_NAME}`);
/** Pages 34–35 (§1.1.13–1.2.2): a list running over the page break, sections two levels deep. */
const SPREAD_NAME = 'debian-reference-p34-35.en.pdf';
const SPREAD = readFileSync(`libs/documents/test-fixtures/${SPREAD_NAME}`);
const FIFO_QUESTION = 'How do named pipes (FIFOs) work?';
const FIFO_SECTION = '1.2.8 Named pipes (FIFOs)';

interface Chunk {
  chunkIndex: number;
  content: string;
  page: number | null;
  pageEnd: number | null;
  section: string[] | null;
  disabled: boolean;
}
interface LookupItem {
  documentId: string;
  content: string;
  fileName: string | null;
  page: number | null;
  pageEnd: number | null;
  section: string[] | null;
}

describe('knowledge: a document and its chunks (browser)', () => {
  let api: ConsoleApi;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let pageErrors: string[];
  let pdf: { id: string; title: string };
  let spread: { id: string; title: string };

  const chunksOf = async (id: string) =>
    (await apiCall<{ items: Chunk[] }>(api, 'GET', `/admin/knowledge/documents/${id}/chunks?limit=200`, api.operatorKey)).items;
  // A new session each time: the retrieval memory would otherwise hold back what this session already saw.
  const lookup = async (query: string) =>
    (await apiCall<{ results: LookupItem[] }>(api, 'POST', '/ai/knowledge/lookup', api.clientKey, { sessionId: crypto.randomUUID(), query, topK: 5 })).results;
  const openDocument = async (id: string, title: string) => {
    await page.goto(`${api.baseUrl}/console/#/knowledge/${id}`);
    await page.getByRole('heading', { level: 1, name: title, exact: true }).waitFor();
  };

  beforeAll(async () => {
    api = await startConsoleApi();
    const outcomes = await uploadAndImport(
      api,
      [
        { name: PDF_NAME, bytes: PDF, type: 'application/pdf' },
        { name: SPREAD_NAME, bytes: SPREAD, type: 'application/pdf' },
      ],
      { domain: 'debian', keywords: 'debian, fifo' },
    );
    const documentOf = async (name: string) => {
      const id = outcomes.find((o) => o.fileName === name)?.documentId;
      const doc = await apiCall<{ id: string; title: string }>(api, 'GET', `/admin/knowledge/documents/${id}`, api.operatorKey);
      return { id: doc.id, title: doc.title };
    };
    pdf = await documentOf(PDF_NAME);
    spread = await documentOf(SPREAD_NAME);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  beforeEach(async () => {
    ({ context, page, pageErrors } = await openPage(browser, { acceptDownloads: true }));
    activePage = page;
    await signIn(page, api);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  });

  afterEach(async () => {
    await context.close();
    expect(pageErrors).toEqual([]);
  });

  it('opens from the documents list: the file, media type, pages, domain and keywords, and its chunks with pages and sections', async () => {
    await page.goto(`${api.baseUrl}/console/#/knowledge`);
    await page.locator('tr', { hasText: SPREAD_NAME }).getByRole('link', { name: spread.title, exact: true }).click();
    await page.getByRole('heading', { level: 1, name: spread.title, exact: true }).waitFor();
    expect(page.url()).toContain(`#/knowledge/${spread.id}`);
    const details = page.getByTestId('document-details');
    for (const text of [SPREAD_NAME, 'application/pdf', 'debian', 'debian, fifo']) await containsText(details, text);
    await containsText(details, /Pages\s*2/);

    const stored = await chunksOf(spread.id);
    await hasCount(page.locator('li.chunk'), stored.length);
    await containsText(page.getByRole('status'), `${stored.length} of ${stored.length} chunks shown`);
    // Every chunk shows its pages ("p. 1" or "p. 1–2") and its heading path as the API stores them.
    for (const chunk of stored) {
      const head = page.getByRole('listitem', { name: `Chunk ${chunk.chunkIndex + 1}`, exact: true }).locator('.chunk-head');
      await containsText(head, chunk.pageEnd !== null && chunk.pageEnd > chunk.page! ? `p. ${chunk.page}–${chunk.pageEnd}` : `p. ${chunk.page}`);
      if (chunk.section?.length) await containsText(head, chunk.section.join(' › '));
    }
    // The list running over the page break, under a heading two levels deep.
    const over = stored.find((c) => c.page === 1 && c.pageEnd === 2 && (c.section?.length ?? 0) === 2);
    expect(over).toBeDefined();
    const head = page.getByRole('listitem', { name: `Chunk ${over!.chunkIndex + 1}`, exact: true }).locator('.chunk-head');
    await containsText(head, 'p. 1–2');
    await containsText(head, '1.2 Unix-like filesystem › 1.2.1 Unix file basics');
  });

  it('the original file downloads: HTTP 200, its media type, its name and its bytes', async () => {
    await openDocument(pdf.id, pdf.title);
    const [response, download] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith(`/admin/knowledge/documents/${pdf.id}/file`)),
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download the original file' }).click(),
    ]);
    expect(response.status()).toBe(200);
    expect(response.headers()['content-type']).toBe('application/pdf');
    expect(download.suggestedFilename()).toBe(PDF_NAME);
    expect(Buffer.compare(readFileSync(await download.path()), PDF)).toBe(0);
  });

  it("edits a chunk's text: a blank text shows the API's 400 and keeps the draft; a new text is saved and still there after a reload", async () => {
    await openDocument(pdf.id, pdf.title);
    const [first] = await chunksOf(pdf.id);
    const item = page.getByRole('listitem', { name: 'Chunk 1', exact: true });
    await containsText(item.locator('.chunk-text'), first.content.slice(0, 40));
    await item.getByRole('button', { name: 'Edit chunk 1' }).click();
    const form = item.getByRole('form', { name: 'Edit chunk 1' });
    await hasValue(form.getByLabel('Text of chunk 1'), first.content);

    // Cancel leaves the chunk as it was.
    await form.getByLabel('Text of chunk 1').fill('not saved');
    await form.getByRole('button', { name: 'Cancel' }).click();
    await containsText(item.locator('.chunk-text'), first.content.slice(0, 40));

    await item.getByRole('button', { name: 'Edit chunk 1' }).click();
    await form.getByLabel('Text of chunk 1').fill('   ');
    await form.getByRole('button', { name: 'Save' }).click();
    await containsText(item.getByRole('alert'), 'The API answered 400');
    await containsText(item.getByRole('alert'), 'content must not be blank');
    await containsText(item.getByRole('alert'), 'Request id');
    await hasValue(form.getByLabel('Text of chunk 1'), '   ');
    expect((await chunksOf(pdf.id))[0].content).toBe(first.content);

    const corrected = 'Corrected in the console: this chunk opens section 1.2.6 of the Debian Reference.';
    await form.getByLabel('Text of chunk 1').fill(corrected);
    await form.getByRole('button', { name: 'Save' }).click();
    await hasCount(item.getByRole('form'), 0);
    await containsText(item.locator('.chunk-text'), corrected);
    await hasCount(item.getByRole('alert'), 0);
    expect((await chunksOf(pdf.id))[0]).toMatchObject({ chunkIndex: 0, content: corrected, disabled: false });

    await page.reload();
    await page.getByRole('heading', { level: 1, name: pdf.title, exact: true }).waitFor();
    await containsText(page.getByRole('listitem', { name: 'Chunk 1', exact: true }).locator('.chunk-text'), corrected);
  });

  it("the lookup playground shows each result's file, pages and section", async () => {
    const [top] = await lookup(FIFO_QUESTION);
    expect(top).toMatchObject({ documentId: pdf.id, fileName: PDF_NAME });
    expect(top.section?.at(-1)).toBe(FIFO_SECTION);
    await page.goto(`${api.baseUrl}/console/#/knowledge`);
    await page.getByRole('heading', { level: 1, name: 'Knowledge', exact: true }).waitFor();
    await page.getByPlaceholder(/示教器屏幕不亮了/).fill(FIFO_QUESTION);
    await page.getByRole('button', { name: 'Look up' }).click();
    const row = page.getByTestId('lookup-result').locator('tbody tr').first();
    await containsText(row, PDF_NAME);
    await containsText(row, top.pageEnd !== null && top.page !== null && top.pageEnd > top.page ? `p. ${top.page}–${top.pageEnd}` : `p. ${top.page}`);
    await containsText(row, top.section!.join(' › '));
    // The title opens the document's view.
    await row.getByRole('link', { name: pdf.title }).click();
    await page.getByRole('heading', { level: 1, name: pdf.title, exact: true }).waitFor();
  });

  it('disables a chunk: marked as disabled, a lookup no longer returns it; enabled, it is returned again', async () => {
    const [top] = await lookup(FIFO_QUESTION);
    expect(top.documentId).toBe(pdf.id);
    const target = (await chunksOf(pdf.id)).find((c) => c.content === top.content);
    expect(target).toBeDefined();
    const number = target!.chunkIndex + 1;

    await openDocument(pdf.id, pdf.title);
    const item = page.getByRole('listitem', { name: `Chunk ${number}`, exact: true });
    await hasCount(item.locator('.badge', { hasText: 'disabled' }), 0);
    await item.getByRole('button', { name: `Disable chunk ${number}` }).click();
    await containsText(item.locator('.badge'), 'disabled');
    await visible(item.getByRole('button', { name: `Enable chunk ${number}` }));
    expect(await item.getAttribute('class')).toContain('chunk-disabled');
    expect((await chunksOf(pdf.id)).find((c) => c.chunkIndex === target!.chunkIndex)?.disabled).toBe(true);
    expect((await lookup(FIFO_QUESTION)).map((r) => r.content)).not.toContain(target!.content);

    // Still marked after a reload (the API's state, not the page's).
    await page.reload();
    await containsText(page.getByRole('listitem', { name: `Chunk ${number}`, exact: true }).locator('.badge'), 'disabled');
    await page
      .getByRole('listitem', { name: `Chunk ${number}`, exact: true })
      .getByRole('button', { name: `Enable chunk ${number}` })
      .click();
    await visible(page.getByRole('listitem', { name: `Chunk ${number}`, exact: true }).getByRole('button', { name: `Disable chunk ${number}` }));
    await hasCount(page.getByRole('listitem', { name: `Chunk ${number}`, exact: true }).locator('.badge', { hasText: 'disabled' }), 0);
    expect((await lookup(FIFO_QUESTION)).map((r) => r.content)).toContain(target!.content);
  });

  it('a long document lists its chunks 50 at a time: "Load more" asks for the next ones until none is left', async () => {
    const paragraphs = Array.from(
      { length: 70 },
      (_, i) =>
        `Paragraph ${i + 1} of the long guide. ${'The console lists the chunks of a document a page at a time and asks for more when the operator wants them. '.repeat(4)}`,
    );
    const created = await apiCall<{ document: { id: string; chunkCount: number } }>(api, 'POST', '/admin/knowledge/documents', api.operatorKey, {
      domain: 'guides',
      filePath: 'guides/long.md',
      title: 'Long guide',
      content: paragraphs.join('\n\n'),
    });
    const total = created.document.chunkCount;
    expect(total).toBeGreaterThan(50);
    await openDocument(created.document.id, 'Long guide');
    const items = page.locator('li.chunk');
    await hasCount(items, 50);
    await containsText(page.getByRole('status'), `50 of ${total} chunks shown`);
    await page.getByRole('button', { name: 'Load more' }).click();
    await hasCount(items, total);
    await containsText(page.getByRole('status'), `${total} of ${total} chunks shown`);
    await hasCount(page.getByRole('button', { name: 'Load more' }), 0);
    // A document posted as text has no original file to download.
    await containsText(page.getByTestId('document-details'), 'none (posted as text)');
    await hasCount(page.getByRole('button', { name: 'Download the original file' }), 0);
  });

  it("a document that is not the tenant's shows the API's 404", async () => {
    await page.goto(`${api.baseUrl}/console/#/knowledge/00000000-0000-4000-8000-000000000000`);
    await containsText(page.getByRole('alert').first(), 'The API answered 404');
  });

  it('in Chinese: pages as 第 N 页, the texts translated, and no serious or critical accessibility violation in either language', async () => {
    await openDocument(pdf.id, pdf.title);
    await page.waitForLoadState('networkidle');
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.getByRole('button', { name: '中文' }).click();
    await visible(page.getByRole('heading', { level: 2, name: '分块' }));
    await containsText(page.locator('.chunk-head').first(), /第 \d+(–\d+)? 页/);
    await visible(page.getByRole('button', { name: '下载原始文件' }));
    await visible(page.getByRole('button', { name: '编辑分块 1' }));
    expect(await seriousA11yViolations(page)).toEqual([]);
  });
});
