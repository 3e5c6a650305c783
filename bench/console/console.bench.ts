/**
 * Operator console benchmark: the console's budgets (docs/console.md "Budgets"):
 *   - JavaScript ≤ 500 KB gzipped: every .js index.html loads (scripts and modulepreloads), gzipped at level 9
 *     as scripts/console/compress.mjs pre-compresses them for serving; brotli and raw sizes reported beside it.
 *   - First load of /console ≤ 1 s on localhost: BENCH_LOADS (default 20) cold loads, each in a fresh browser
 *     context (empty cache): until the sign-in form is interactive, and, signed in, until the Overview's data
 *     is rendered with its charts drawn. The budget is judged on the median; p95 and max are reported beside it.
 *     Warm (cached) loads of the same two are reported too.
 *   - ≤ 3 API calls per page: each of the seven pages and the conversation detail page, loaded on its own,
 *     counting the requests to the API (same origin, outside /console/) until the network is idle.
 * The API runs in this process (startConsoleApi: embedded database, demo tenant, demo traffic seeded): the load
 * generator is the browser, which is its own process (Debian's chromium through playwright-core), so the API's
 * event loop is not shared with the client that measures it.
 * It measures the build in dist/console (`npm run bench:console` builds it first), copied aside when it starts: a
 * rebuild of dist/console meanwhile (vite empties it) would otherwise break the pages mid-run.
 * Prints a markdown table, writes bench/results/console.json; exits 1 if a budget is missed (after printing).
 * Env: BENCH_LOADS (default 20), CHROMIUM_PATH.
 * Run: npm run bench:console
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, seedDemoTraffic, startConsoleApi, type ConsoleApi } from '../../test/console/support/console-harness.js';

const LOADS = Number(process.env.BENCH_LOADS ?? 20);
const JS_BUDGET_GZIP = 500 * 1024;
const FIRST_LOAD_BUDGET_MS = 1000;
const CALLS_BUDGET = 3;
const PAGES = ['overview', 'gaps', 'review', 'conversations', 'intents', 'knowledge', 'jobs', 'keys', 'audit'] as const;
const OPERATOR_KEY_STORAGE = 'arbiter.operatorKey';
const CALLER_STORAGE = 'arbiter.caller';
const builtDir = path.resolve('dist/console');
const consoleDir = mkdtempSync(path.join(tmpdir(), 'arbiter-console-bench-'));

// These run in the page (playwright serializes each function alone: no helpers from this module); this tsconfig has
// no DOM types, hence the narrow casts.
type PageGlobal = {
  document: { getElementById(id: string): { offsetParent: unknown; disabled?: boolean } | null; querySelectorAll(s: string): { length: number } };
  performance: { now(): number; getEntriesByType(type: string): Record<string, number>[] };
};

/** The sign-in form is interactive: the key input is rendered, visible and enabled. Returns the page's clock (ms since navigation start). */
function signInReady(): number | false {
  const g = globalThis as unknown as PageGlobal;
  const input = g.document.getElementById('operator-key');
  return input && input.offsetParent !== null && !input.disabled ? g.performance.now() : false;
}

/** The Overview's data is rendered and every chart it shows has its canvas; nothing is loading. */
function overviewReady(): number | false {
  const g = globalThis as unknown as PageGlobal;
  const { document } = g;
  const charts = document.querySelectorAll('main .chart').length;
  const drawn = document.querySelectorAll('main .chart canvas').length;
  const tiles = document.querySelectorAll('main .tiles').length;
  const loading = document.querySelectorAll('main .state-loading').length;
  const failed = document.querySelectorAll('main .state-error').length;
  if (failed > 0) throw new Error('the Overview shows an error');
  return tiles > 0 && charts > 0 && drawn >= charts && loading === 0 ? g.performance.now() : false;
}

function navigationTiming(): { responseEnd: number; domContentLoaded: number; loadEventEnd: number; transferSize: number } {
  const entry = (globalThis as unknown as PageGlobal).performance.getEntriesByType('navigation')[0];
  return {
    responseEnd: entry.responseEnd,
    domContentLoaded: entry.domContentLoadedEventEnd,
    loadEventEnd: entry.loadEventEnd,
    transferSize: entry.transferSize,
  };
}

interface LoadSample {
  /** Navigation start → the page's own readiness (sign-in input interactive, or Overview charts drawn), page clock. */
  readyMs: number;
  loadEventEndMs: number;
  domContentLoadedMs: number;
  /** Wall clock in this process from page.goto to readiness seen here (includes the CDP round trips). */
  wallMs: number;
}

interface Summary {
  n: number;
  median: number;
  p95: number;
  max: number;
  min: number;
}

function summarize(values: number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
  return { n: sorted.length, median: round(at(0.5)), p95: round(at(0.95)), max: round(sorted[sorted.length - 1]), min: round(sorted[0]) };
}

const round = (value: number) => Math.round(value * 10) / 10;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

/**
 * Every .js of the build (the budget counts all of it: the Overview's lazily loaded chart chunk too), each marked
 * `initial` when index.html loads it (module scripts and modulepreload links).
 */
function javascriptSizes(): {
  files: { file: string; initial: boolean; raw: number; gzip: number; brotli: number; servedGz: number | null; servedBr: number | null }[];
  raw: number;
  gzip: number;
  brotli: number;
} {
  const html = readFileSync(path.join(consoleDir, 'index.html'), 'utf8');
  const urls = new Set<string>();
  for (const match of html.matchAll(/<script\b[^>]*\bsrc="([^"]+\.js)"/g)) urls.add(match[1]);
  for (const match of html.matchAll(/<link\b[^>]*\brel="modulepreload"[^>]*\bhref="([^"]+\.js)"/g)) urls.add(match[1]);
  const initial = new Set([...urls].map((url) => path.join(consoleDir, url.replace(/^\/console\//, '').replace(/^\.\//, ''))));
  const all = readdirSync(path.join(consoleDir, 'assets'))
    .filter((name) => name.endsWith('.js'))
    .map((name) => path.join(consoleDir, 'assets', name));
  const files = all.map((file) => {
    const content = readFileSync(file);
    const served = (suffix: string) => {
      try {
        return statSync(file + suffix).size;
      } catch {
        return null;
      }
    };
    return {
      file: path.relative(consoleDir, file),
      initial: initial.has(file),
      raw: content.length,
      gzip: gzipSync(content, { level: 9 }).length,
      brotli: brotliCompressSync(content, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
      servedGz: served('.gz'),
      servedBr: served('.br'),
    };
  });
  if (files.length === 0) throw new Error('index.html loads no .js: is dist/console a vite build?');
  const sum = (pick: (f: (typeof files)[number]) => number) => files.reduce((total, f) => total + pick(f), 0);
  return { files, raw: sum((f) => f.raw), gzip: sum((f) => f.gzip), brotli: sum((f) => f.brotli) };
}

async function timedLoad(page: Page, url: string, ready: () => number | false): Promise<LoadSample> {
  const started = performance.now();
  await page.goto(url, { waitUntil: 'commit' });
  const handle = await page.waitForFunction(ready, undefined, { polling: 'raf', timeout: 30_000 }).catch(async (error: Error) => {
    const shown = await page
      .locator('body')
      .innerText()
      .catch(() => '?');
    throw new Error(`${url} never got ready (${error.message.split('\n')[0]}); the page shows: ${shown.slice(0, 500)}`);
  });
  const readyMs = (await handle.jsonValue()) as number;
  const wallMs = performance.now() - started;
  await page.waitForLoadState('load');
  const timing = await page.evaluate(navigationTiming);
  return { readyMs, loadEventEndMs: timing.loadEventEnd, domContentLoadedMs: timing.domContentLoaded, wallMs };
}

/** A context whose tab already holds the operator key (as after signing in), in English. */
/** A tab signed in as the console leaves it: the key and who it is (saved at sign-in, so a page load does not ask). */
async function signedInContext(browser: Browser, api: ConsoleApi, key: string): Promise<BrowserContext> {
  const caller = await (await fetch(`${api.baseUrl}/admin/api-keys/current`, { headers: { 'x-api-key': key } })).text();
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, locale: 'en-US' });
  await context.addInitScript(
    ([storageKey, value, callerKey, callerValue]) => {
      const storage = (globalThis as unknown as { sessionStorage: { setItem(k: string, v: string): void } }).sessionStorage;
      storage.setItem(storageKey, value);
      storage.setItem(callerKey, callerValue);
    },
    [OPERATOR_KEY_STORAGE, key, CALLER_STORAGE, caller] as const,
  );
  return context;
}

async function coldLoads(browser: Browser, api: ConsoleApi, signedIn: boolean): Promise<LoadSample[]> {
  const samples: LoadSample[] = [];
  for (let i = 0; i < LOADS; i++) {
    const context = signedIn ? await signedInContext(browser, api, api.operatorKey) : await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    samples.push(await timedLoad(page, `${api.baseUrl}/console/${signedIn ? '#/overview' : ''}`, signedIn ? overviewReady : signInReady));
    await context.close();
  }
  return samples;
}

/** Warm: one context loads once (fills the cache), then reloads LOADS times; hashed assets come from the cache. */
async function warmLoads(browser: Browser, api: ConsoleApi, signedIn: boolean): Promise<LoadSample[]> {
  const context = signedIn ? await signedInContext(browser, api, api.operatorKey) : await browser.newContext({ locale: 'en-US' });
  const page = await context.newPage();
  const url = `${api.baseUrl}/console/${signedIn ? '#/overview' : ''}`;
  const ready = signedIn ? overviewReady : signInReady;
  await timedLoad(page, url, ready);
  const samples: LoadSample[] = [];
  for (let i = 0; i < LOADS; i++) {
    await page.goto('about:blank');
    samples.push(await timedLoad(page, url, ready));
  }
  await context.close();
  return samples;
}

interface PageCalls {
  page: string;
  calls: number;
  paths: string[];
  failed: string[];
  errorShown: boolean;
}

/** Loads one page on its own (a fresh tab, signed in) and counts its API requests until the network is idle. */
async function apiCallsOf(browser: Browser, api: ConsoleApi, hash: string): Promise<PageCalls> {
  const context = await signedInContext(browser, api, api.operatorKey);
  const page = await context.newPage();
  const origin = new URL(api.baseUrl).origin;
  const paths: string[] = [];
  const failed: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.origin === origin && !url.pathname.startsWith('/console')) paths.push(`${request.method()} ${url.pathname}`);
  });
  page.on('response', (response) => {
    const url = new URL(response.url());
    if (url.origin === origin && response.status() >= 400) failed.push(`${response.status()} ${url.pathname}`);
  });
  await page.goto(`${api.baseUrl}/console/${hash}`, { waitUntil: 'networkidle' });
  // Effects that start after the first render's data (a second wave) would land within this window too.
  await page.waitForTimeout(300);
  await page.waitForLoadState('networkidle');
  const errorShown = (await page.locator('main .state-error').count()) > 0;
  await context.close();
  return { page: hash, calls: paths.length, paths, failed, errorShown };
}

async function main(): Promise<void> {
  const failures: string[] = [];
  try {
    cpSync(builtDir, consoleDir, { recursive: true });
  } catch {
    throw new Error('The console is not built: run `npm run build:console` first (npm run bench:console does)');
  }
  const js = javascriptSizes();
  if (js.gzip > JS_BUDGET_GZIP) failures.push(`JavaScript ${kb(js.gzip)} gzipped > ${kb(JS_BUDGET_GZIP)}`);

  const api = await startConsoleApi({ CONSOLE_DIR: consoleDir });
  let browser: Browser | undefined;
  try {
    const seeded = await seedDemoTraffic(api);
    browser = await launchChromium();
    // One throwaway load so the first measured sample does not pay for the browser's own start-up.
    const warmUp = await browser.newContext();
    await timedLoad(await warmUp.newPage(), `${api.baseUrl}/console/`, signInReady);
    await warmUp.close();

    const coldSignIn = await coldLoads(browser, api, false);
    const coldOverview = await coldLoads(browser, api, true);
    const warmSignIn = await warmLoads(browser, api, false);
    const warmOverview = await warmLoads(browser, api, true);

    const calls: PageCalls[] = [];
    for (const page of PAGES) calls.push(await apiCallsOf(browser, api, `#/${page}`));
    calls.push(await apiCallsOf(browser, api, `#/conversations/${encodeURIComponent(seeded.badCaseConversationId)}`));

    const loads = {
      coldSignIn: {
        ready: summarize(coldSignIn.map((s) => s.readyMs)),
        loadEventEnd: summarize(coldSignIn.map((s) => s.loadEventEndMs)),
        wall: summarize(coldSignIn.map((s) => s.wallMs)),
      },
      coldOverview: {
        ready: summarize(coldOverview.map((s) => s.readyMs)),
        loadEventEnd: summarize(coldOverview.map((s) => s.loadEventEndMs)),
        wall: summarize(coldOverview.map((s) => s.wallMs)),
      },
      warmSignIn: {
        ready: summarize(warmSignIn.map((s) => s.readyMs)),
        loadEventEnd: summarize(warmSignIn.map((s) => s.loadEventEndMs)),
        wall: summarize(warmSignIn.map((s) => s.wallMs)),
      },
      warmOverview: {
        ready: summarize(warmOverview.map((s) => s.readyMs)),
        loadEventEnd: summarize(warmOverview.map((s) => s.loadEventEndMs)),
        wall: summarize(warmOverview.map((s) => s.wallMs)),
      },
    };
    if (loads.coldSignIn.ready.median > FIRST_LOAD_BUDGET_MS)
      failures.push(`cold first load (sign-in interactive) median ${loads.coldSignIn.ready.median} ms > ${FIRST_LOAD_BUDGET_MS} ms`);
    if (loads.coldOverview.ready.median > FIRST_LOAD_BUDGET_MS)
      failures.push(`cold first load (Overview drawn) median ${loads.coldOverview.ready.median} ms > ${FIRST_LOAD_BUDGET_MS} ms`);
    for (const c of calls) {
      if (c.calls > CALLS_BUDGET) failures.push(`${c.page} makes ${c.calls} API calls > ${CALLS_BUDGET}: ${c.paths.join(', ')}`);
      if (c.failed.length > 0 || c.errorShown) failures.push(`${c.page} failed: ${c.failed.join(', ') || 'an error is shown'}`);
    }

    const lines: string[] = [];
    lines.push(`## Console budgets (${LOADS} loads each; chromium headless, API in process on the embedded database)`, '');
    lines.push('| JavaScript (every chunk; lazy = loaded by its page) | raw | gzip -9 | brotli q11 | budget |', '|---|---:|---:|---:|---:|');
    for (const f of js.files) lines.push(`| ${f.file}${f.initial ? '' : ' (lazy)'} | ${kb(f.raw)} | ${kb(f.gzip)} | ${kb(f.brotli)} | |`);
    lines.push(
      `| **total** | ${kb(js.raw)} | **${kb(js.gzip)}** | ${kb(js.brotli)} | ≤ ${kb(JS_BUDGET_GZIP)} gzip ${js.gzip <= JS_BUDGET_GZIP ? '✅' : '❌'} |`,
      '',
    );
    lines.push(
      '| Load (ms from navigation start) | ready median | ready p95 | ready max | loadEventEnd median | wall median | budget |',
      '|---|---:|---:|---:|---:|---:|---:|',
    );
    const row = (name: string, l: (typeof loads)['coldSignIn'], budget: string) =>
      `| ${name} | ${l.ready.median} | ${l.ready.p95} | ${l.ready.max} | ${l.loadEventEnd.median} | ${l.wall.median} | ${budget} |`;
    const verdict = (median: number) => `median ≤ ${FIRST_LOAD_BUDGET_MS} ${median <= FIRST_LOAD_BUDGET_MS ? '✅' : '❌'}`;
    lines.push(row('cold: sign-in form interactive', loads.coldSignIn, verdict(loads.coldSignIn.ready.median)));
    lines.push(row('cold: Overview, signed in, charts drawn', loads.coldOverview, verdict(loads.coldOverview.ready.median)));
    lines.push(row('warm: sign-in form interactive', loads.warmSignIn, ''));
    lines.push(row('warm: Overview, charts drawn', loads.warmOverview, ''), '');
    lines.push(`| Page | API calls on load | requests | budget |`, '|---|---:|---|---:|');
    for (const c of calls) {
      const ok = c.calls <= CALLS_BUDGET && c.failed.length === 0 && !c.errorShown;
      lines.push(
        `| ${c.page} | ${c.calls} | ${c.paths.join('<br>') || '—'}${c.failed.length ? ` (failed: ${c.failed.join(', ')})` : ''} | ≤ ${CALLS_BUDGET} ${ok ? '✅' : '❌'} |`,
      );
    }
    lines.push('');
    lines.push(failures.length === 0 ? 'All budgets met.' : `Budgets missed:\n${failures.map((f) => `- ${f}`).join('\n')}`);
    process.stdout.write(`${lines.join('\n')}\n`);

    mkdirSync('bench/results', { recursive: true });
    const result = {
      at: new Date().toISOString(),
      loads: LOADS,
      budgets: { javascriptGzipBytes: JS_BUDGET_GZIP, firstLoadMs: FIRST_LOAD_BUDGET_MS, apiCallsPerPage: CALLS_BUDGET },
      javascript: js,
      firstLoad: loads,
      samples: { coldSignIn, coldOverview, warmSignIn, warmOverview },
      apiCalls: calls,
      failures,
    };
    writeFileSync('bench/results/console.json', `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write('wrote bench/results/console.json\n');
  } finally {
    await browser?.close();
    await api.close();
    rmSync(consoleDir, { recursive: true, force: true });
  }
  if (failures.length > 0) process.exitCode = 1;
}

await main();
