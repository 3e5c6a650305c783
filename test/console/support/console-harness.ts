import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { TenantSeeds } from '@arbiter/tenancy';
import { createApp } from '../../../apps/api/src/create-app.js';

export const CONSOLE_ADMIN_TOKEN = 'console-admin-token-0123456789';

export interface ConsoleApi {
  baseUrl: string;
  operatorKey: string;
  clientKey: string;
  app: NestFastifyApplication;
  close(): Promise<void>;
}

/**
 * The real API on the embedded database (PGlite in the process, as `npm start` runs it) with the demo tenant,
 * listening on a free port and serving the built console (dist/console: `npm run build:console`).
 */
export async function startConsoleApi(env: Record<string, string> = {}): Promise<ConsoleApi> {
  const consoleDir = path.resolve('dist/console');
  try {
    readFileSync(path.join(consoleDir, 'index.html'));
  } catch {
    throw new Error('The console is not built: run `npm run build:console` first (npm run test:browser does)');
  }
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'arbiter-console-'));
  const app = await createApp({
    env: {
      NODE_ENV: 'test',
      DATABASE_URL: '',
      DATA_DIR: dataDir,
      ADMIN_TOKEN: CONSOLE_ADMIN_TOKEN,
      SEED_DEMO: 'true',
      JOBS_ENABLED: 'true',
      CONSOLE_DIR: consoleDir,
      ...env,
    },
    logLevel: (process.env.TEST_LOG_LEVEL as 'silent' | undefined) ?? 'silent',
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.getHttpServer().address();
  if (!address || typeof address === 'string') throw new Error('no TCP address');
  const demo = app.get(TenantSeeds).seededDemo;
  if (!demo) throw new Error('the demo tenant was not seeded');
  return {
    baseUrl: `http://127.0.0.1:${address.port}`,
    operatorKey: demo.apiKeys.operator,
    clientKey: demo.apiKeys.client,
    app,
    async close() {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Debian's chromium (apt-get install chromium), never a downloaded browser; CHROMIUM_PATH overrides. */
export async function launchChromium(): Promise<Browser> {
  const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  try {
    readFileSync(executablePath);
  } catch {
    throw new Error(`No browser at ${executablePath}: install Debian's chromium (apt-get install -y chromium) or set CHROMIUM_PATH`);
  }
  return chromium.launch({
    executablePath,
    headless: true,
    // Without the background-networking flags chromium keeps calling out, and this network refuses it.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** POST/GET JSON against the API with a key; throws on an unexpected status so seeding never fails silently. */
export async function apiCall<T>(api: ConsoleApi, method: string, url: string, key: string, body?: unknown, expected: number[] = [200, 201]): Promise<T> {
  const response = await fetch(api.baseUrl + url, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!expected.includes(response.status)) throw new Error(`${method} ${url} → ${response.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/**
 * A new browser context (English, 1400×900, downloads as asked) and its page, with the page's uncaught errors
 * collected: every browser spec checks after each test that there were none.
 */
export async function openPage(
  browser: Browser,
  options: { acceptDownloads?: boolean } = {},
): Promise<{ context: BrowserContext; page: Page; pageErrors: string[] }> {
  const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1400, height: 900 }, ...options });
  const page = await context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  return { context, page, pageErrors };
}

/** Signs in through the form, as an operator would. */
export async function signIn(page: Page, api: ConsoleApi, key = api.operatorKey): Promise<void> {
  await page.goto(`${api.baseUrl}/console/`);
  await page.getByLabel(/Operator key|运营密钥/).fill(key);
  await page.getByRole('button', { name: /^(Sign in|登录)$/ }).click();
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/** axe-core's serious and critical violations of the page as it is now (WCAG 2 A/AA rules). */
export async function seriousA11yViolations(page: Page): Promise<AxeViolation[]> {
  // Evaluated over the DevTools protocol: the console's CSP (script-src 'self') rightly refuses an inline script tag.
  await page.evaluate(axeSource);
  // A string, not a function: this file is compiled without the DOM types; it runs in the page.
  const violations = await page.evaluate<AxeViolation[]>(`(async () => {
    const result = await window.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => JSON.stringify(n.target)) }));
  })()`);
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

export interface SeededData {
  /** A chat turn that the user marked not useful (a bad case in the review queue). */
  badCaseSessionId: string;
  badCaseConversationId: string;
  /** A chat turn that the user found useful. */
  usefulSessionId: string;
  /** Questions asked through the chat, each a session with a route trace. */
  questions: string[];
}

/** What an operator finds after a day of the demo desk: answered, clarified and unanswerable chat turns, feedback both ways. */
export async function seedDemoTraffic(api: ConsoleApi): Promise<SeededData> {
  const questions = [
    '示教器黑屏怎么办',
    '机械臂报警 E201 怎么处理？',
    '你们支持开发票吗',
    '请问机械臂可以在水下使用吗',
    'How do I reset the robot arm?',
    '示教器屏幕不亮了',
  ];
  const turns: { sessionId: string; conversationId: string }[] = [];
  for (const message of questions) turns.push(await apiCall(api, 'POST', '/ai/chat', api.clientKey, { message, channel: 'web' }));
  // An ingested turn from the bots' channel with no references: an uncovered question (a knowledge gap).
  await apiCall(api, 'POST', '/api/sessions', api.clientKey, {
    query: '机械臂能不能装在天花板上',
    answer: '抱歉，没有找到相关资料。',
    status: 'SUCCESS',
    channel: 'bot',
  });
  const bad = turns[3];
  const useful = turns[0];
  await apiCall(api, 'POST', '/api/feedback', api.clientKey, { sessionId: bad.sessionId, feedback: 'not_useful', comment: '没有回答我的问题' });
  await apiCall(api, 'POST', '/api/feedback', api.clientKey, { sessionId: useful.sessionId, feedback: 'useful' });
  return { badCaseSessionId: bad.sessionId, badCaseConversationId: bad.conversationId, usefulSessionId: useful.sessionId, questions };
}

/**
 * Uploads files as the console does (multipart POST /admin/knowledge/files) and waits until the import has an
 * outcome for each; throws unless every file was imported (created, updated or unchanged).
 */
export async function uploadAndImport(
  api: ConsoleApi,
  files: readonly { name: string; bytes: Uint8Array; type: string }[],
  fields: Readonly<Record<string, string>> = {},
): Promise<{ fileName: string; status: string; documentId?: string }[]> {
  const form = new FormData();
  for (const file of files) form.append('file', new Blob([file.bytes], { type: file.type }), file.name);
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  const response = await fetch(`${api.baseUrl}/admin/knowledge/files`, { method: 'POST', headers: { 'x-api-key': api.operatorKey }, body: form });
  const text = await response.text();
  if (response.status !== 202) throw new Error(`POST /admin/knowledge/files → ${response.status} ${text}`);
  const { importId } = JSON.parse(text) as { importId: string };
  for (let i = 0; i < 600; i++) {
    const status = await apiCall<{ status: string; files?: { fileName: string; status: string; documentId?: string }[] }>(
      api,
      'GET',
      `/admin/knowledge/imports/${importId}`,
      api.operatorKey,
    );
    if (status.status === 'succeeded' || status.status === 'failed') {
      const outcomes = status.files ?? [];
      if (status.status === 'failed' || outcomes.some((f) => !['created', 'updated', 'unchanged'].includes(f.status)))
        throw new Error(`the import did not succeed: ${JSON.stringify(status)}`);
      return outcomes;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the import ${importId} did not finish within a minute`);
}
