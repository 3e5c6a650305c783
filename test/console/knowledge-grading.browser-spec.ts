import { afterAll, afterEach, beforeAll, beforeEach, describe, expect } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DEMO_GRADING_LABELS } from '../support/demo-grading-labels.js';
import { apiCall, launchChromium, openPage, seriousA11yViolations, signIn, startConsoleApi, type ConsoleApi } from './support/console-harness.js';
import { itSavingScreenshots } from './support/failure-screenshots.js';
import { containsText, visible } from './support/waits.js';

// The grade's calibration on the knowledge page (docs/console.md "Knowledge"): a file of labelled questions read in
// the browser, previewed (a dry run that stores nothing), applied and dropped again, each checked through the API
// (Debian's chromium against the real API on the embedded database, the demo tenant).
let activePage: Page | null = null;

const it = itSavingScreenshots('grading-', () => activePage);

interface GradingView {
  source: 'default' | 'fitted';
  features: string[];
  calibration: { weights: number[] };
  fittedAt: string | null;
}

const jsonLines = (rows: readonly object[]) => Buffer.from(rows.map((row) => JSON.stringify(row)).join('\n'));

describe('knowledge: the grade calibration (browser)', () => {
  let api: ConsoleApi;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let pageErrors: string[];

  const grading = () => apiCall<GradingView>(api, 'GET', '/admin/knowledge/grading', api.operatorKey);
  const card = () => page.getByRole('article', { name: 'Grade calibration' });
  const chooseFile = (name: string, buffer: Buffer) =>
    card()
      .getByLabel(/^Labelled questions/)
      .setInputFiles({ name, mimeType: 'application/x-ndjson', buffer });

  beforeAll(async () => {
    api = await startConsoleApi();
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  beforeEach(async () => {
    ({ context, page, pageErrors } = await openPage(browser));
    activePage = page;
    await signIn(page, api);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await page.goto(`${api.baseUrl}/console/#/knowledge`);
    await page.getByRole('heading', { level: 2, name: 'Grade calibration' }).waitFor();
  });

  afterEach(async () => {
    await context.close();
    expect(pageErrors).toEqual([]);
  });

  it('names the first bad line of a labelled file and sends nothing', async () => {
    await containsText(card().getByTestId('grading-in-force'), 'Built-in');
    await chooseFile('bad.jsonl', Buffer.from('{"query":"控制柜默认IP是多少","filePath":"controller/ethernet-connection.md"}\n{"query":"  ","filePath":null}'));
    await containsText(card().getByRole('alert'), 'Line 2: query must be a non-blank string');
    expect(await card().getByRole('button', { name: 'Preview the fit' }).count()).toBe(0);
    expect((await grading()).source).toBe('default');
  });

  it("shows the API's 400 for too few questions, naming the minimum; nothing is stored", async () => {
    await chooseFile('few.jsonl', jsonLines(DEMO_GRADING_LABELS.slice(0, 5)));
    await containsText(card().getByRole('status'), '5 questions read, 0 with no answer in the knowledge base.');
    await card().getByRole('button', { name: 'Preview the fit' }).click();
    await containsText(card().getByRole('alert'), 'The API answered 400');
    await containsText(card().getByRole('alert'), 'at least 20 pairs');
    expect((await grading()).source).toBe('default');
  });

  it('previews a fit without storing it, applies it, shows it in force, then goes back to the built-in calibration', async () => {
    await chooseFile('demo-labels.jsonl', jsonLines(DEMO_GRADING_LABELS));
    await containsText(card().getByRole('status'), '20 questions read, 5 with no answer in the knowledge base.');

    // The calibration in force is asked again after an applied fit only: a preview changed nothing.
    const reads: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'GET' && new URL(request.url()).pathname === '/admin/knowledge/grading') reads.push(request.url());
    });
    await card().getByRole('button', { name: 'Preview the fit' }).click();
    const result = card().getByTestId('grading-fit-result');
    await containsText(result, 'Preview only, nothing stored');
    expect(reads).toEqual([]);
    for (const header of ['Before', 'After (in sample)']) await visible(result.getByRole('columnheader', { name: header }));
    await containsText(result.getByRole('row', { name: /^Questions/ }), '20 (5 with no answer)');
    expect((await grading()).source).toBe('default');

    await card().getByRole('button', { name: 'Fit and apply' }).click();
    await containsText(result, 'Fitted and applied');
    await containsText(card().getByTestId('grading-in-force'), 'Fitted for this knowledge base');
    expect(reads).toHaveLength(1);
    const fitted = await grading();
    expect(fitted.source).toBe('fitted');
    expect(fitted.calibration.weights).toHaveLength(fitted.features.length);
    await visible(card().getByRole('table', { name: 'On the questions it was fitted on' }));
    expect(await seriousA11yViolations(page)).toEqual([]);

    page.once('dialog', (dialog) => void dialog.accept());
    await card().getByRole('button', { name: 'Back to the built-in calibration' }).click();
    await containsText(card().getByTestId('grading-in-force'), 'Built-in');
    expect((await grading()).source).toBe('default');
  });
});
