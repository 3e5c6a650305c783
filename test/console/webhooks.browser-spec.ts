import { afterAll, afterEach, beforeAll, beforeEach, describe, expect } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { apiCall, launchChromium, openPage, seriousA11yViolations, signIn, startConsoleApi, type ConsoleApi } from './support/console-harness.js';
import { itSavingScreenshots } from './support/failure-screenshots.js';
import { containsText, hasCount, visible } from './support/waits.js';
import { pollUntil } from '@arbiter/testing';

// The console's Webhooks page (docs/console.md, docs/webhooks.md): subscriptions and their delivery log from the
// real API on the embedded database, a webhook disabled by a failing local receiver, re-enabled and redelivered in
// the browser, checked through the API and at the receiver. On failure the page is saved under test/console/screenshots/.
let activePage: Page | null = null;

const it = itSavingScreenshots('webhooks-', () => activePage);

interface Webhook {
  id: string;
  url: string;
  enabled: boolean;
  disabledReason: string | null;
}
interface Delivery {
  id: string;
  eventId: string;
  status: string;
  redeliveryOf: string | null;
}

/** Polls `read` until `done` holds (docs/CONVENTIONS.md: one poll-until, `pollUntil` of @arbiter/testing). */
const until = async <T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> =>
  (await pollUntil('condition', read, done, { deadlineMs: timeoutMs, intervalMs: 100 })).value;

describe('webhooks page (browser)', () => {
  const receiver = new WebhookReceiver();
  let api: ConsoleApi;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let pageErrors: string[];
  let desk: Webhook;
  let jobsHook: Webhook;
  let failed: Delivery;

  const deliveriesOf = async (id: string) => (await apiCall<{ items: Delivery[] }>(api, 'GET', `/admin/webhooks/${id}/deliveries`, api.operatorKey)).items;
  const webhook = (id: string) => apiCall<Webhook>(api, 'GET', `/admin/webhooks/${id}`, api.operatorKey);

  beforeAll(async () => {
    await receiver.start();
    receiver.reply = () => ({ status: 500 });
    api = await startConsoleApi({
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      WEBHOOK_DISPATCH_INTERVAL_MS: '200',
      WEBHOOK_RETRY_BASE_MS: '200',
      WEBHOOK_DISABLE_AFTER_FAILURES: '2',
      JOBS_POLL_INTERVAL_MS: '200',
    });
    desk = await apiCall<Webhook>(api, 'POST', '/admin/webhooks', api.operatorKey, {
      url: receiver.url,
      events: ['handoff.requested'],
      description: 'support desk',
    });
    jobsHook = await apiCall<Webhook>(api, 'POST', '/admin/webhooks', api.operatorKey, { url: `${receiver.url}/jobs`, events: ['job.failed'] });
    // The demo's legitimate exit: not found, shouldTransfer (README "First steps").
    const turn = await apiCall<{ shouldTransfer: boolean }>(api, 'POST', '/ai/chat', api.clientKey, { message: '请问机械臂可以在水下使用吗' });
    expect(turn.shouldTransfer).toBe(true);
    await until(
      () => webhook(desk.id),
      (w) => !w.enabled,
    );
    [failed] = await until(
      () => deliveriesOf(desk.id),
      (items) => items[0]?.status === 'failed',
    );
    browser = await launchChromium();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
    await receiver.stop();
  });

  beforeEach(async () => {
    ({ context, page, pageErrors } = await openPage(browser));
    activePage = page;
    await signIn(page, api);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  });

  afterEach(async () => {
    await context.close();
    expect(pageErrors).toEqual([]);
  });

  it('lists the webhooks and the first one’s deliveries; a disabled webhook is enabled and its failed event redelivered', async () => {
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Webhooks', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhooks', exact: true }).waitFor();
    const hooks = page.getByRole('table', { name: 'Webhooks' });
    await hasCount(hooks.locator('tbody tr'), 2);
    const deskRow = hooks.locator('tr', { hasText: desk.url }).filter({ hasText: 'handoff.requested' });
    await containsText(deskRow, 'disabled');
    await containsText(deskRow, 'disabled after 2 failed attempts in a row');
    await containsText(deskRow, 'support desk');
    await containsText(hooks.locator('tr', { hasText: 'job.failed' }), 'enabled');

    // Newest first: the desk webhook was created first, so select it.
    await deskRow.getByRole('button', { name: 'Deliveries' }).click();
    await visible(page.getByRole('heading', { level: 2, name: `Deliveries to ${desk.url}` }));
    const log = page.getByRole('table', { name: 'Deliveries' });
    const failedRow = log.locator(`tr[data-delivery-id="${failed.id}"]`);
    await containsText(failedRow, 'handoff.requested');
    await containsText(failedRow, 'failed');
    await containsText(failedRow, 'HTTP 500');
    await containsText(failedRow, '500');
    expect(await failedRow.getByRole('button', { name: 'Redeliver' }).isDisabled()).toBe(true);

    receiver.reply = () => ({ status: 200 });
    await deskRow.getByRole('button', { name: 'Enable' }).click();
    await containsText(deskRow, 'enabled');
    expect((await webhook(desk.id)).enabled).toBe(true);

    const before = receiver.received.length;
    await failedRow.getByRole('button', { name: 'Redeliver' }).click();
    await containsText(page.getByRole('status'), 'The handoff.requested event is queued for delivery again.');
    const [again] = await until(
      () => deliveriesOf(desk.id),
      (items) => items[0]?.redeliveryOf === failed.id && items[0].status === 'succeeded',
    );
    await receiver.waitFor(before + 1);
    expect(JSON.parse(receiver.received.at(-1)!.body)).toMatchObject({ id: failed.eventId, type: 'handoff.requested' });
    await page.getByRole('button', { name: 'Refresh' }).last().click();
    const redelivered = log.locator(`tr[data-delivery-id="${again!.id}"]`);
    await containsText(redelivered, 'delivered');
    await containsText(redelivered, 'redelivery');
    await containsText(redelivered, '200');

    // The other webhook has no deliveries yet.
    await hooks.locator('tr', { hasText: 'job.failed' }).getByRole('button', { name: 'Deliveries' }).click();
    await visible(page.getByRole('heading', { level: 2, name: `Deliveries to ${jobsHook.url}` }));
    await containsText(page.locator('.state-empty'), 'No deliveries yet.');
    expect(await seriousA11yViolations(page)).toEqual([]);
  });

  it('in Chinese, with no serious or critical accessibility violation', async () => {
    const zhContext = await browser.newContext({ locale: 'zh-CN' });
    const zhPage = await zhContext.newPage();
    activePage = zhPage;
    await zhPage.goto(`${api.baseUrl}/console/`);
    await zhPage.getByLabel('运营密钥').fill(api.operatorKey);
    await zhPage.getByRole('button', { name: '登录' }).click();
    await zhPage.getByRole('heading', { level: 1, name: '总览' }).waitFor();
    await zhPage.goto(`${api.baseUrl}/console/#/webhooks`);
    await zhPage.getByRole('heading', { level: 1, name: 'Webhook', exact: true }).waitFor();
    await visible(zhPage.getByRole('heading', { level: 2, name: `投递到 ${jobsHook.url} 的记录` }));
    await containsText(zhPage.getByRole('table', { name: 'Webhook' }), '已启用');
    await zhPage.waitForLoadState('networkidle');
    expect(await seriousA11yViolations(zhPage)).toEqual([]);
    await zhContext.close();
  });
});
