import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  apiCall,
  launchChromium,
  openPage,
  seedDemoTraffic,
  seriousA11yViolations,
  signIn,
  startConsoleApi,
  type ConsoleApi,
  type SeededData,
} from './support/console-harness.js';
import { itSavingScreenshots } from './support/failure-screenshots.js';
import { containsText, hasCount, hasValue, visible } from './support/waits.js';

// The operator console in a real browser (Debian's chromium) against the real API on the embedded database
// (docs/console.md "Tests"). On failure the page is saved under test/console/screenshots/.

/** The page a test is driving, for the screenshot of a failure. */
let activePage: Page | null = null;

const it = itSavingScreenshots('', () => activePage);
const PAGES = ['overview', 'gaps', 'review', 'conversations', 'intents', 'knowledge', 'jobs'] as const;

describe('operator console (browser)', () => {
  let api: ConsoleApi;
  let seeded: SeededData;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let pageErrors: string[];

  beforeAll(async () => {
    api = await startConsoleApi();
    seeded = await seedDemoTraffic(api);
    // A job run for the Jobs page and the Overview's job health.
    const job = await apiCall<{ jobId: string }>(api, 'POST', '/admin/coverage/re-evaluate', api.operatorKey, {}, [202]);
    // Pages read the run's final state: wait for it (the job runner picks it up within its poll interval).
    for (let i = 0; i < 300; i++) {
      const run = await apiCall<{ status: string }>(api, 'GET', `/admin/jobs/${job.jobId}`, api.operatorKey);
      if (run.status === 'succeeded') break;
      if (run.status === 'failed' || i === 299) throw new Error(`the seeded re-evaluation did not succeed: ${JSON.stringify(run)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  beforeEach(async () => {
    ({ context, page, pageErrors } = await openPage(browser));
    activePage = page;
  });

  afterEach(async () => {
    await context.close();
    expect(pageErrors).toEqual([]);
  });

  const TITLES: Record<(typeof PAGES)[number], string> = {
    overview: 'Overview',
    gaps: 'Knowledge gaps',
    review: 'Review queue',
    conversations: 'Conversations',
    intents: 'Intents',
    knowledge: 'Knowledge',
    jobs: 'Jobs',
  };
  // Waits for this page's own title: the previous page's h1 may still be on screen right after the hash changes.
  const open = async (name: (typeof PAGES)[number]) => {
    await page.goto(`${api.baseUrl}/console/#/${name}`);
    await page.getByRole('heading', { level: 1, name: TITLES[name], exact: true }).waitFor();
  };

  describe('sign-in', () => {
    it('a wrong key stays on sign-in with the API message; nothing is stored', async () => {
      await signIn(page, api, 'ak_not_a_real_key_000000000000000000');
      await containsText(page.getByRole('alert'), 'Invalid API key');
      await containsText(page.getByRole('alert'), 'Request id');
      expect(await page.evaluate<number>('window.sessionStorage.length')).toBe(0);
    });

    it('a client key is refused with the API message (operator key required)', async () => {
      await signIn(page, api, api.clientKey);
      await containsText(page.getByRole('alert'), 'operator key required');
    });

    it('a blank key is named before any call', async () => {
      await page.goto(`${api.baseUrl}/console/`);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await visible(page.getByText('Enter the operator key'));
    });

    it('the operator key opens the console; it lives in sessionStorage only, never in the URL or localStorage', async () => {
      await signIn(page, api);
      await visible(page.getByRole('heading', { level: 1, name: 'Overview' }));
      expect(page.url()).not.toContain(api.operatorKey);
      expect(await page.evaluate<string>('JSON.stringify(window.localStorage)')).not.toContain(api.operatorKey);
      expect(await page.evaluate<string | null>("window.sessionStorage.getItem('arbiter.operatorKey')")).toBe(api.operatorKey);
    });

    it('a key refused mid-session (401) goes back to sign-in with the API message', async () => {
      await signIn(page, api);
      await page.getByRole('heading', { name: 'Overview' }).waitFor();
      await page.evaluate("window.sessionStorage.setItem('arbiter.operatorKey', 'ak_revoked_0000000000000000000000')");
      // The side navigation's link: the Overview has an "All jobs →" link too once its data is in.
      await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Jobs', exact: true }).click();
      await visible(page.getByRole('heading', { name: 'Sign in' }));
      await containsText(page.getByRole('alert'), 'Invalid API key');
    });
  });

  describe('pages on seeded data', () => {
    beforeEach(async () => {
      await signIn(page, api);
      await page.getByRole('heading', { name: 'Overview' }).waitFor();
    });

    it('overview: totals, charts, top gaps and job health of the window', async () => {
      const tiles = page.locator('.tile');
      await containsText(tiles.filter({ hasText: 'Sessions' }), '7');
      await containsText(tiles.filter({ hasText: 'Bad cases' }), '1');
      await visible(page.locator('.chart canvas').first());
      await containsText(page.locator('.card', { hasText: 'Top knowledge gaps' }), '机械臂能不能装在天花板上');
      // At least the awaited re-evaluation; scheduled jobs of the demo tenant may have succeeded meanwhile too.
      await containsText(page.locator('.card', { hasText: 'Job health' }), /succeeded\s*[1-9]\d*/);
    });

    it('overview: the channel filter narrows the figures', async () => {
      await page.getByLabel('Channel').fill('bot');
      await page.getByRole('button', { name: 'Apply' }).click();
      await containsText(page.locator('.tile').filter({ hasText: 'Sessions' }), /^Sessions\s*1$/);
    });

    it('knowledge gaps: grouped uncovered questions with a CSV export', async () => {
      await open('gaps');
      await containsText(page.locator('table'), '机械臂能不能装在天花板上');
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
      expect(download.suggestedFilename()).toMatch(/^knowledge-gaps-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/);
      const file = await download.path();
      const { readFileSync } = await import('node:fs');
      const csv = readFileSync(file, 'utf8');
      expect(csv.split('\r\n')[0]).toBe('\ufeffquestion,normalized,count,layer,reasons,last_seen_at,sample_sessions');
      expect(csv).toContain('机械臂能不能装在天花板上');
    });

    it('conversations: list → detail with the route trace timeline, retrieval grades and verdicts', async () => {
      await open('conversations');
      await hasCount(page.locator('tbody tr'), 7);
      await page.goto(`${api.baseUrl}/console/#/conversations/${seeded.badCaseConversationId}`);
      await visible(page.getByText('请问机械臂可以在水下使用吗').first());
      const timeline = page.locator('.timeline').first();
      for (const step of ['Rule', 'Semantic candidates', 'LLM judge', 'Fusion']) await containsText(timeline, step);
      await containsText(timeline, 'Effective weights');
      await visible(page.getByRole('heading', { name: 'Coverage verdict' }).first());
      await visible(page.getByRole('heading', { name: 'Self-evaluation' }).first());
      await containsText(page.locator('.session').first(), 'not_useful');
    });

    it('conversations: a follow-up shows the standalone question it was resolved to, and how', async () => {
      const first = await apiCall<{ conversationId: string }>(api, 'POST', '/ai/chat', api.clientKey, { message: '机械臂报警 E201 怎么处理？' });
      await apiCall(api, 'POST', '/ai/chat', api.clientKey, { message: '还是不行', conversationId: first.conversationId });
      await page.goto(`${api.baseUrl}/console/#/conversations/${first.conversationId}`);
      const followUp = page.locator('.session').nth(1);
      await containsText(followUp, 'Resolved as');
      await containsText(followUp, '机械臂报警 E201 怎么处理？ 还是不行');
      await containsText(followUp.locator('dd code'), 'still_failing');
      await hasCount(page.locator('.session').first().getByText('Resolved as'), 0);
    });

    it('intents: rules of the demo, and try-a-message shows the live trace', async () => {
      await open('intents');
      // The demo has more than three rules: wait for the fourth row.
      await visible(page.locator('.card', { hasText: 'Rules' }).locator('tbody tr').nth(3));
      await page.getByPlaceholder(/示教器黑屏怎么办/).fill('示教器黑屏怎么办');
      await page.getByRole('button', { name: 'Route' }).click();
      const result = page.getByTestId('route-result');
      await containsText(result, 'confidence');
      await containsText(result.locator('.timeline'), 'Fusion');
      await containsText(result.locator('code').first(), /rule_high_confidence|semantic_override|llm_judge|fusion_fallback|no_match/);
    });

    it('intents: an invalid rule shows the API message and keeps what was typed', async () => {
      await open('intents');
      await page.getByRole('button', { name: 'New rule' }).click();
      const form = page.getByRole('form', { name: 'New rule' });
      await form.getByLabel('Intent').fill('warranty_check');
      await form.getByLabel(/^Keywords/).fill('保修, warranty');
      await form.getByLabel('Priority').fill('high');
      await form.getByRole('button', { name: 'Save' }).click();
      await containsText(form.getByRole('alert'), 'The API answered 400');
      await containsText(form.getByRole('alert'), 'priority');
      await containsText(form.getByRole('alert'), 'Request id');
      await hasValue(form.getByLabel('Intent'), 'warranty_check');
      await hasValue(form.getByLabel(/^Keywords/), '保修, warranty');
      await hasValue(form.getByLabel('Priority'), 'high');
    });

    it('intents: the training status beside the rules follows a rule saved in the console', async () => {
      const before = await apiCall<{ rulesVersion: string }>(api, 'GET', '/admin/intent/status', api.operatorKey);
      await open('intents');
      const status = page.getByTestId('intent-status');
      await containsText(status, `rules v${before.rulesVersion}`);
      await page.getByRole('button', { name: 'New rule' }).click();
      const form = page.getByRole('form', { name: 'New rule' });
      await form.getByLabel('Intent').fill('console_status_check');
      await form.getByLabel(/^Examples/).fill('zq console status example one\nzq console status example two');
      await form.getByRole('button', { name: 'Save' }).click();
      // the page asks again after the save, and keeps asking while the training waits or runs, until the
      // classifier of the new rules serves
      const next = String(Number(before.rulesVersion) + 1);
      await containsText(status, `rules v${next}`);
      await containsText(status, `classifier v${next}`);
      await containsText(status, 'Classifier up to date');
      await containsText(status, /last training \d/);
      const after = await apiCall<{ rulesVersion: string; classifierVersion: string }>(api, 'GET', '/admin/intent/status', api.operatorKey);
      expect(after).toMatchObject({ rulesVersion: next, classifierVersion: next });
    });

    it('intents: the evaluation report from an uploaded labelled file', async () => {
      await open('intents');
      const jsonl = ['{"text":"示教器黑屏怎么办","intent":"示教器"}', '{"text":"我要退款","intent":"退款"}', '{"text":"今天天气怎么样","intent":null}'].join(
        '\n',
      );
      await page.getByLabel(/Labelled file/).setInputFiles({ name: 'labelled.jsonl', mimeType: 'application/json', buffer: Buffer.from(jsonl) });
      const report = page.getByTestId('evaluation-report');
      await containsText(report, 'Accuracy');
      await containsText(report.locator('table').first(), '示教器');
    });

    it('knowledge: documents of the demo, and the lookup playground shows grades and confidence', async () => {
      await open('knowledge');
      await visible(page.locator('.card', { hasText: 'Documents' }).locator('tbody tr').first());
      await page.getByPlaceholder(/示教器屏幕不亮了/).fill('示教器屏幕不亮了');
      await page.getByRole('button', { name: 'Look up' }).click();
      const result = page.getByTestId('lookup-result');
      await containsText(result, /PRECISE|HIGHLY_RELEVANT|REFERENCE/);
      await containsText(result, 'confidence');
    });

    it('knowledge: a document uploaded through the form is listed, found by a lookup and deleted, the list asked again after each write without a reload', async () => {
      await open('knowledge');
      await visible(page.locator('.card', { hasText: 'Documents' }).locator('tbody tr').first());
      // The list's requests after it was shown: one after each write (the write invalidates it), and no page load.
      const listed: string[] = [];
      page.on('request', (request) => {
        if (request.method() === 'GET' && new URL(request.url()).pathname === '/admin/knowledge/documents') listed.push(request.url());
      });
      await page.evaluate('window.__sameDocument = true');
      const form = page.getByRole('form', { name: 'Upload a document' });
      await form.getByLabel('Domain').fill('manuals');
      await form.getByLabel('File path').fill('manuals/waterproof.md');
      await form.getByLabel('Title').fill('防水等级说明');
      await form.getByLabel('Content').fill('机械臂本体防护等级为 IP54，不可在水下使用。末端执行器可选 IP67 防水套件。');
      await form.getByRole('button', { name: 'Upload' }).click();
      await containsText(form.getByRole('status'), 'created');
      const documents = page.locator('.card', { hasText: 'Documents' }).locator('tbody');
      await containsText(documents, 'manuals/waterproof.md');
      expect(listed).toHaveLength(1);
      const stored = await apiCall<{ items: { filePath: string }[] }>(api, 'GET', '/admin/knowledge/documents?limit=100', api.operatorKey);
      expect(stored.items.map((d) => d.filePath)).toContain('manuals/waterproof.md');
      page.once('dialog', (dialog) => void dialog.accept());
      await page.getByRole('button', { name: 'Delete 防水等级说明' }).click();
      await hasCount(documents.locator('tr', { hasText: 'manuals/waterproof.md' }), 0);
      expect(listed).toHaveLength(2);
      expect(await page.evaluate<boolean | undefined>('window.__sameDocument')).toBe(true);
      const after = await apiCall<{ items: { filePath: string }[] }>(api, 'GET', '/admin/knowledge/documents?limit=100', api.operatorKey);
      expect(after.items.map((d) => d.filePath)).not.toContain('manuals/waterproof.md');
    });

    it('knowledge: a bulk file reports per item; a bad item is named and the good ones land', async () => {
      await open('knowledge');
      const lines = [
        JSON.stringify({ domain: 'manuals', filePath: 'manuals/bulk-a.md', title: '批量 A', content: '批量导入的第一篇文档内容。' }),
        JSON.stringify({ domain: 'manuals', filePath: 'manuals/bulk-b.md', title: '', content: '' }),
      ].join('\n');
      await page.getByLabel(/^File\s*\(JSON Lines/).setInputFiles({ name: 'docs.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(lines) });
      await containsText(page.getByRole('status'), '1 created');
      await containsText(page.getByRole('status'), '1 failed');
      await containsText(page.locator('.failures'), '#2 manuals/bulk-b.md');
    });

    it('knowledge: files dropped and chosen are uploaded with per-file status; a refused file is named with its reason', async () => {
      await open('knowledge');
      const form = page.getByRole('form', { name: 'Upload files' });
      // Drag and drop: a real PDF (debian-reference pages) dropped on the zone.
      const pdf = readFileSync('libs/documents/test-fixtures/debian-reference-p34-35.en.pdf');
      const dropped = await page.evaluateHandle(
        `(() => { const transfer = new DataTransfer(); transfer.items.add(new File([Uint8Array.from(atob('${pdf.toString('base64')}'), (c) => c.charCodeAt(0))], 'debian-p34.pdf', { type: 'application/pdf' })); return transfer; })()`,
      );
      await form.getByTestId('drop-zone').dispatchEvent('drop', { dataTransfer: dropped });
      // The picker: an image, which the API refuses at the door.
      await form
        .getByLabel('Choose files')
        .setInputFiles({ name: 'photo.png', mimeType: 'image/png', buffer: readFileSync('libs/documents/test-fixtures/debian-reference-home.png') });
      await containsText(form.getByRole('list', { name: 'Files to upload' }), 'debian-p34.pdf');
      await form.getByLabel(/^Domain/).fill('debian');
      await form.getByRole('button', { name: 'Upload 2 file(s)' }).click();
      const files = form.getByTestId('upload-files');
      await containsText(files.locator('tr', { hasText: 'photo.png' }), 'UNSUPPORTED_TYPE');
      await containsText(files.locator('tr', { hasText: 'debian-p34.pdf' }), 'created');
      await containsText(form.getByRole('status'), '2 of 2 files done');
      const listed = await apiCall<{ items: { filePath: string; mediaType: string | null; domain: string }[] }>(
        api,
        'GET',
        '/admin/knowledge/documents?limit=100',
        api.operatorKey,
      );
      expect(listed.items.find((d) => d.filePath === 'debian-p34.pdf')).toMatchObject({ mediaType: 'application/pdf', domain: 'debian' });
      expect(listed.items.map((d) => d.filePath)).not.toContain('photo.png');
      await containsText(page.locator('.card', { hasText: 'Documents' }).locator('tbody'), 'debian-p34.pdf');
    });

    it('knowledge: an upload whose every file is refused shows the API error and each file', async () => {
      await open('knowledge');
      const form = page.getByRole('form', { name: 'Upload files' });
      await form.getByLabel('Choose files').setInputFiles({ name: 'empty.md', mimeType: 'text/markdown', buffer: Buffer.alloc(0) });
      await form.getByRole('button', { name: 'Upload 1 file(s)' }).click();
      await containsText(form.locator('.error-message').first(), /refused/i);
      await containsText(form.getByTestId('upload-files'), 'EMPTY_FILE');
    });

    it('review: a case of the library edited and retracted in the console is changed and gone in the API', async () => {
      const created = await apiCall<{ id: string }>(api, 'POST', '/admin/case-library', api.operatorKey, {
        query: '控制柜风扇异响怎么办',
        answer: '请检查风扇滤网。',
        faultCategory: 'MECHANICAL',
      });
      await open('review');
      const library = page.locator('.card', { hasText: 'Case library' });
      const row = library.locator('tr', { hasText: '控制柜风扇异响怎么办' });
      await row.getByRole('button', { name: 'Edit' }).click();
      const form = library.getByRole('form', { name: 'Edit case' });
      await form.getByLabel('Answer').fill('请检查风扇滤网并清理积尘。');
      await form.getByLabel('Error code').fill('F301');
      await form.getByRole('button', { name: 'Save' }).click();
      await containsText(library.locator('tr', { hasText: '控制柜风扇异响怎么办' }), 'F301');
      const edited = await apiCall<{ answer: string; errorCode: string | null }>(api, 'GET', `/admin/case-library/${created.id}`, api.operatorKey);
      expect(edited).toMatchObject({ answer: '请检查风扇滤网并清理积尘。', errorCode: 'F301' });
      page.once('dialog', (dialog) => void dialog.accept());
      await library.locator('tr', { hasText: '控制柜风扇异响怎么办' }).getByRole('button', { name: 'Retract' }).click();
      await hasCount(library.locator('tr', { hasText: '控制柜风扇异响怎么办' }), 0);
      await apiCall(api, 'GET', `/admin/case-library/${created.id}`, api.operatorKey, undefined, [404]);
    });

    it('conversations: the filter is in the URL and survives a reload, a visit to a conversation, back and forward', async () => {
      const all = await apiCall<{ items: unknown[] }>(api, 'GET', '/admin/monitoring/conversations?limit=100', api.operatorKey);
      await open('conversations');
      const rows = page.locator('tbody tr');
      await hasCount(rows, all.items.length);
      await page.getByLabel('Channel').fill('bot');
      await page.getByRole('button', { name: 'Apply' }).click();
      await hasCount(rows, 1);
      expect(new URL(page.url()).hash).toBe('#/conversations?channel=bot');
      await page.reload();
      await hasCount(rows, 1);
      await hasValue(page.getByLabel('Channel'), 'bot');
      await rows.first().getByRole('link').click();
      await containsText(page.locator('.session').first(), '机械臂能不能装在天花板上');
      await page.goBack();
      await hasCount(rows, 1);
      await hasValue(page.getByLabel('Channel'), 'bot');
      // Back once more: the list before the filter, and its empty field; forward: filtered again.
      await page.goBack();
      await hasCount(rows, all.items.length);
      await hasValue(page.getByLabel('Channel'), '');
      await page.goForward();
      await hasCount(rows, 1);
      await hasValue(page.getByLabel('Channel'), 'bot');
    });

    it('jobs and review: a status filter (and the case library’s source beside it) survives a reload and back', async () => {
      await open('jobs');
      await containsText(page.locator('tbody'), 'coverage');
      await page.getByLabel('Status').selectOption('succeeded');
      await hasValue(page.getByLabel('Status'), 'succeeded');
      expect(new URL(page.url()).hash).toBe('#/jobs?status=succeeded');
      await page.reload();
      await hasValue(page.getByLabel('Status'), 'succeeded');
      await visible(page.locator('tbody tr').first());
      await hasCount(page.locator('tbody tr').filter({ hasNotText: 'succeeded' }), 0);
      // Two lists on one page keep each other's state.
      await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Review queue', exact: true }).click();
      await page.getByLabel('Status').selectOption('RESOLVED');
      await page.getByLabel('Source').selectOption('AUTO');
      expect(new URL(page.url()).hash).toBe('#/review?status=RESOLVED&source=AUTO');
      await page.reload();
      await hasValue(page.getByLabel('Status'), 'RESOLVED');
      await hasValue(page.getByLabel('Source'), 'AUTO');
      await containsText(page.locator('.card', { hasText: 'Case library' }).locator('tbody'), 'AUTO');
      await page.goBack();
      await hasValue(page.getByLabel('Status'), 'RESOLVED');
      await hasValue(page.getByLabel('Source'), '');
      await page.goBack();
      await hasValue(page.getByLabel('Status'), 'OPEN');
      await page.goBack();
      await page.getByRole('heading', { level: 1, name: 'Jobs', exact: true }).waitFor();
      await hasValue(page.getByLabel('Status'), 'succeeded');
    });

    it('jobs: the re-evaluation run with its status and progress', async () => {
      await open('jobs');
      await containsText(page.locator('tbody'), 'coverage');
      await visible(page.locator('tbody progress').first());
    });

    it('review: resolving a bad case with a note round-trips to the API', async () => {
      await open('review');
      const item = page.getByTestId('bad-case').filter({ hasText: '请问机械臂可以在水下使用吗' });
      await containsText(item, 'Knowledge gap');
      await item.getByRole('button', { name: 'Review' }).click();
      const form = item.getByRole('form', { name: 'Review' });
      await form.getByLabel('Note', { exact: true }).fill('需要补充防水等级文档');
      await form.getByRole('button', { name: 'Resolve' }).click();
      await visible(page.getByText('No bad cases here.'));
      const resolved = await apiCall<{ items: { sessionId: string; review: { status: string; note: string | null } | null }[] }>(
        api,
        'GET',
        '/admin/bad-cases?status=RESOLVED',
        api.operatorKey,
      );
      expect(resolved.items.find((c) => c.sessionId === seeded.badCaseSessionId)?.review).toMatchObject({ status: 'RESOLVED', note: '需要补充防水等级文档' });
      // And back: reopening from the Resolved filter.
      await page.getByLabel('Status').selectOption('RESOLVED');
      await item.getByRole('button', { name: 'Review' }).click();
      await item.getByRole('form', { name: 'Review' }).getByRole('button', { name: 'Reopen' }).click();
      await visible(page.getByText('No bad cases here.'));
    });

    it('review: the case library lists the AUTO case from useful feedback', async () => {
      await open('review');
      await containsText(page.locator('.card', { hasText: 'Case library' }).locator('tbody'), 'AUTO');
    });

    it('the conversation detail and the sign-in page have no serious or critical accessibility violations', async () => {
      await page.goto(`${api.baseUrl}/console/#/conversations/${seeded.badCaseConversationId}`);
      await page.locator('.timeline').first().waitFor();
      expect(await seriousA11yViolations(page)).toEqual([]);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      expect(await seriousA11yViolations(page)).toEqual([]);
    });

    for (const name of PAGES) {
      it(`${name}: no serious or critical accessibility violations (axe-core)`, async () => {
        await open(name);
        await page.waitForLoadState('networkidle');
        expect(await seriousA11yViolations(page)).toEqual([]);
      });
    }
  });

  describe('Chinese', () => {
    it('follows a Chinese browser and switches to English and back', async () => {
      const zhContext = await browser.newContext({ locale: 'zh-CN' });
      const zhPage = await zhContext.newPage();
      activePage = zhPage;
      await zhPage.goto(`${api.baseUrl}/console/`);
      await visible(zhPage.getByRole('heading', { name: '登录' }));
      await zhPage.getByLabel('运营密钥').fill(api.operatorKey);
      await zhPage.getByRole('button', { name: '登录' }).click();
      await visible(zhPage.getByRole('heading', { level: 1, name: '总览' }));
      expect(await zhPage.evaluate<string>('document.documentElement.lang')).toBe('zh-CN');
      for (const [hash, heading] of [
        ['gaps', '知识缺口'],
        ['review', '复核队列'],
        ['conversations', '会话'],
        ['intents', '意图'],
        ['knowledge', '知识库'],
        ['jobs', '任务'],
      ] as const) {
        await zhPage.goto(`${api.baseUrl}/console/#/${hash}`);
        await visible(zhPage.getByRole('heading', { level: 1, name: heading }));
      }
      await zhPage.getByRole('button', { name: 'English' }).click();
      await visible(zhPage.getByRole('heading', { level: 1, name: 'Jobs' }));
      await zhPage.reload();
      // The switch is remembered over the browser's language.
      await visible(zhPage.getByRole('heading', { level: 1, name: 'Jobs' }));
      await zhContext.close();
    });

    it('Chinese pages have no serious or critical accessibility violations either', async () => {
      const zhContext = await browser.newContext({ locale: 'zh-CN' });
      const zhPage = await zhContext.newPage();
      activePage = zhPage;
      await zhPage.goto(`${api.baseUrl}/console/`);
      await zhPage.getByLabel('运营密钥').fill(api.operatorKey);
      await zhPage.getByRole('button', { name: '登录' }).click();
      await zhPage.getByRole('heading', { level: 1, name: '总览' }).waitFor();
      const violations: Record<string, unknown[]> = {};
      const zhTitles: Record<(typeof PAGES)[number], string> = {
        overview: '总览',
        gaps: '知识缺口',
        review: '复核队列',
        conversations: '会话',
        intents: '意图',
        knowledge: '知识库',
        jobs: '任务',
      };
      for (const name of PAGES) {
        await zhPage.goto(`${api.baseUrl}/console/#/${name}`);
        await zhPage.getByRole('heading', { level: 1, name: zhTitles[name], exact: true }).waitFor();
        await zhPage.waitForLoadState('networkidle');
        violations[name] = await seriousA11yViolations(zhPage);
      }
      expect(violations).toEqual(Object.fromEntries(PAGES.map((name) => [name, []])));
      await zhContext.close();
    });
  });

  describe('serving', () => {
    it('/console redirects to /console/, assets are immutable and pre-compressed, index.html is not cached and has a CSP', async () => {
      const redirect = await fetch(`${api.baseUrl}/console`, { redirect: 'manual' });
      expect(redirect.status).toBe(301);
      expect(redirect.headers.get('location')).toBe('/console/');
      const index = await fetch(`${api.baseUrl}/console/`, { headers: { 'accept-encoding': 'br, gzip' } });
      expect(index.headers.get('cache-control')).toBe('no-cache');
      expect(index.headers.get('content-security-policy')).toContain("default-src 'self'");
      const html = await index.text();
      const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1];
      expect(script).toBeDefined();
      const asset = await fetch(`${api.baseUrl}${script}`, { headers: { 'accept-encoding': 'gzip' } });
      expect(asset.status).toBe(200);
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(asset.headers.get('content-encoding')).toBe('gzip');
      const missing = await fetch(`${api.baseUrl}/console/assets/nope.js`);
      expect(missing.status).toBe(404);
    });
  });
});
