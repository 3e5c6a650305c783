/**
 * Screenshots of the operator console for the docs: every page in English and Chinese, full page at a
 * 1400×900 viewport, to docs/console/<page>.<en|zh>.png.
 * Boots the browser harness (the real API on the embedded database with the demo tenant, serving the built console),
 * seeds a day of demo traffic and a coverage re-evaluation job run (so the Jobs page has one), then loads each page
 * signed in, with the language preset as the switch remembers it (localStorage 'arbiter.language').
 * Chinese needs a CJK font in the system (Debian: apt-get install fonts-noto-cjk); without one the Chinese shots
 * show boxes, and this script says so loudly.
 * Env: SCREENSHOTS_DIR (default docs/console), CHROMIUM_PATH.
 * Run: npm run console:screenshots (builds the console first)
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { apiCall, launchChromium, seedDemoTraffic, startConsoleApi, type ConsoleApi } from '../../test/console/support/console-harness.js';

const PAGES = ['overview', 'gaps', 'review', 'conversations', 'intents', 'knowledge', 'jobs', 'webhooks', 'keys', 'audit'] as const;
const LANGUAGES = ['en', 'zh'] as const;
const outDir = path.resolve(process.env.SCREENSHOTS_DIR ?? 'docs/console');

function warn(message: string): void {
  const bar = '!'.repeat(100);
  process.stderr.write(`\n${bar}\n!! ${message}\n${bar}\n\n`);
}

/** True when fontconfig knows a CJK font (fonts-noto-cjk and the like); Chinese renders as boxes without one. */
function hasCjkFont(): boolean {
  try {
    return /cjk|wenquanyi|droid sans fallback|han sans|han serif/i.test(execFileSync('fc-list', { encoding: 'utf8' }));
  } catch {
    return false;
  }
}

/** Polls a job run until it has finished (or 30 s have passed: then the shot shows it still running). */
async function waitForJob(api: ConsoleApi, jobId: string): Promise<string> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const run = await apiCall<{ status: string }>(api, 'GET', `/admin/jobs/${encodeURIComponent(jobId)}`, api.operatorKey);
    if (run.status !== 'queued' && run.status !== 'running') return run.status;
    if (Date.now() > deadline) return run.status;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Waits until the page's data is in: no request in flight, nothing loading, charts past their entry animation. */
async function settle(page: Page, problems: string[]): Promise<void> {
  await page.waitForLoadState('networkidle');
  const settled = await page
    .waitForFunction(
      () => {
        const { document } = globalThis as unknown as { document: { querySelectorAll(s: string): { length: number } } };
        return document.querySelectorAll('main .state-loading').length === 0 && document.querySelectorAll('main h1').length > 0;
      },
      undefined,
      { timeout: 30_000 },
    )
    .then(
      () => true,
      () => false,
    );
  if (!settled) problems.push(`still loading after 30 s: ${(await page.locator('main').innerText()).slice(0, 300)}`);
  // ECharts animates its series in (1 s by default).
  if ((await page.locator('main .chart').count()) > 0) await page.waitForTimeout(1500);
  else await page.waitForTimeout(200);
}

async function shoot(browser: Browser, api: ConsoleApi, language: (typeof LANGUAGES)[number], page: (typeof PAGES)[number]): Promise<string> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, locale: language === 'zh' ? 'zh-CN' : 'en-US', deviceScaleFactor: 1 });
  await context.addInitScript(
    ([key, lang]) => {
      const g = globalThis as unknown as { sessionStorage: { setItem(k: string, v: string): void }; localStorage: { setItem(k: string, v: string): void } };
      g.sessionStorage.setItem('arbiter.operatorKey', key);
      g.localStorage.setItem('arbiter.language', lang);
    },
    [api.operatorKey, language] as const,
  );
  const tab = await context.newPage();
  const problems: string[] = [];
  tab.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  tab.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  tab.on('response', (response) => {
    if (response.status() >= 400) problems.push(`${response.status()} ${new URL(response.url()).pathname}`);
  });
  await tab.goto(`${api.baseUrl}/console/#/${page}`);
  await settle(tab, problems);
  if ((await tab.locator('main .state-error').count()) > 0) problems.push(`shows an error: ${await tab.locator('main .state-error').first().innerText()}`);
  const file = path.join(outDir, `${page}.${language}.png`);
  await tab.screenshot({ path: file, fullPage: true });
  await context.close();
  const size = statSync(file).size;
  process.stdout.write(`${path.relative(process.cwd(), file)} (${Math.round(size / 1024)} KB)${problems.length ? `  ⚠ ${problems.join('; ')}` : ''}\n`);
  return file;
}

async function main(): Promise<void> {
  const cjk = hasCjkFont();
  if (!cjk) warn('No CJK font found (fc-list): the Chinese screenshots will show boxes instead of glyphs. Install one: apt-get install -y fonts-noto-cjk');

  // A copy of the build: a rebuild of dist/console meanwhile (vite empties it) would break pages mid-run.
  const consoleDir = mkdtempSync(path.join(tmpdir(), 'arbiter-console-shots-'));
  try {
    cpSync(path.resolve('dist/console'), consoleDir, { recursive: true });
  } catch {
    throw new Error('The console is not built: run `npm run build:console` first (npm run console:screenshots does)');
  }
  const api = await startConsoleApi({ CONSOLE_DIR: consoleDir });
  let browser: Browser | undefined;
  try {
    const seeded = await seedDemoTraffic(api);
    const { jobId } = await apiCall<{ jobId: string }>(api, 'POST', '/admin/coverage/re-evaluate', api.operatorKey, {}, [202]);
    const status = await waitForJob(api, jobId);
    process.stdout.write(`seeded ${seeded.questions.length} chat turns, feedback, an uncovered turn; coverage re-evaluation job ${status}\n`);

    mkdirSync(outDir, { recursive: true });
    browser = await launchChromium();
    for (const language of LANGUAGES) for (const page of PAGES) await shoot(browser, api, language, page);
  } finally {
    await browser?.close();
    await api.close();
    rmSync(consoleDir, { recursive: true, force: true });
  }
  if (!cjk) warn('The Chinese screenshots were taken WITHOUT a CJK font: they show boxes. Do not commit them.');
}

await main();
