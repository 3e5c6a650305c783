import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect } from '@jest/globals';
import Papa from 'papaparse';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import {
  apiCall,
  launchChromium,
  openPage,
  seedDemoTraffic,
  seriousA11yViolations,
  signIn,
  startConsoleApi,
  type ConsoleApi,
} from './support/console-harness.js';
import { itSavingScreenshots } from './support/failure-screenshots.js';
import { containsText, hasCount, hasValue, visible } from './support/waits.js';

// Access in the console (docs/console.md "Sign-in and keys", "API keys", "Audit log"): the API keys page (create →
// the secret shown once → listed; rotate; revoke), the audit page (entries of the writes, filters, load more, CSV
// export, retention) and a viewer's console (who is signed in, no write control, try-it and lookups still work),
// against the real API on the embedded database. On failure the page is saved under test/console/screenshots/.
let activePage: Page | null = null;

const it = itSavingScreenshots('access-', () => activePage);

interface Key {
  id: string;
  name: string;
  role: string;
  status: string;
  key?: string;
  expiresAt: string | null;
  previousSecretValidUntil: string | null;
}
interface Entry {
  id: string;
  action: string;
  resourceType: string;
  label: string | null;
  actor: { kind: string; keyId?: string; name?: string };
}

describe('access pages (browser)', () => {
  let api: ConsoleApi;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let pageErrors: string[];
  let operatorKeyId: string;

  const keys = () => apiCall<Key[]>(api, 'GET', '/admin/api-keys', api.operatorKey);
  /** The status of a call with a key (who-am-I: any operator or viewer key answers 200). */
  const statusWith = async (key: string) => (await fetch(`${api.baseUrl}/admin/api-keys/current`, { headers: { 'x-api-key': key } })).status;
  const open = async (hash: string, title: string) => {
    await page.goto(`${api.baseUrl}/console/#/${hash}`);
    await page.getByRole('heading', { level: 1, name: title, exact: true }).waitFor();
  };

  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    await receiver.start();
    receiver.reply = () => ({ status: 500 });
    // A receiver answering 500 disables a webhook after one failure: the viewer's Webhooks page has a disabled
    // webhook with a failed delivery, where an operator would see Enable and Redeliver.
    api = await startConsoleApi({
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      WEBHOOK_DISPATCH_INTERVAL_MS: '200',
      WEBHOOK_RETRY_BASE_MS: '200',
      WEBHOOK_DISABLE_AFTER_FAILURES: '1',
      JOBS_POLL_INTERVAL_MS: '200',
    });
    operatorKeyId = (await keys()).find((k) => k.role === 'operator')!.id;
    browser = await launchChromium();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
    await receiver.stop();
  });

  beforeEach(async () => {
    ({ context, page, pageErrors } = await openPage(browser));
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: api.baseUrl });
    activePage = page;
  });

  afterEach(async () => {
    await context.close();
    expect(pageErrors).toEqual([]);
  });

  describe('an operator', () => {
    beforeEach(async () => {
      await signIn(page, api);
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    });

    it('sees who is signed in; the API keys page lists the tenant’s keys and marks the one in use', async () => {
      const who = page.getByTestId('signed-in-as');
      await containsText(who, 'Signed in as operator');
      await containsText(who, 'operator');
      await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'API keys', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'API keys', exact: true }).waitFor();
      const table = page.getByRole('table', { name: 'API keys' });
      const mine = table.locator(`tr[data-key-id="${operatorKeyId}"]`);
      await containsText(mine, 'the key you are signed in with');
      await containsText(mine, 'active');
      await containsText(mine, 'never');
      await containsText(table.locator('tr', { hasText: 'client' }).first(), 'client');
      // A reload keeps the session: the key and who it is are in sessionStorage, so no call asks again.
      const asked: string[] = [];
      page.on('request', (request) => {
        if (new URL(request.url()).pathname === '/admin/api-keys/current') asked.push(request.url());
      });
      await page.reload();
      await page.getByRole('heading', { level: 1, name: 'API keys', exact: true }).waitFor();
      await containsText(page.getByTestId('signed-in-as'), 'Signed in as operator');
      expect(asked).toEqual([]);
      // The key without who it is (a tab from before): asked once.
      await page.evaluate("window.sessionStorage.removeItem('arbiter.caller')");
      await page.reload();
      await page.getByRole('heading', { level: 1, name: 'API keys', exact: true }).waitFor();
      await containsText(page.getByTestId('signed-in-as'), 'Signed in as operator');
      expect(asked).toHaveLength(1);
      expect(await seriousA11yViolations(page)).toEqual([]);
    });

    it('the API keys page loads with one API call and the audit log page with three (docs/console.md budget)', async () => {
      const calls: string[] = [];
      page.on('request', (request) => {
        const url = new URL(request.url());
        if (!url.pathname.startsWith('/console')) calls.push(`${request.method()} ${url.pathname}`);
      });
      await open('keys', 'API keys');
      await visible(page.getByRole('table', { name: 'API keys' }));
      await page.waitForLoadState('networkidle');
      expect(calls).toEqual(['GET /admin/api-keys']);
      calls.length = 0;
      await open('audit', 'Audit log');
      await visible(page.getByRole('table', { name: 'Audit log' }));
      await visible(page.getByRole('form', { name: 'Retention' }));
      await page.waitForLoadState('networkidle');
      expect(calls.sort()).toEqual(['GET /admin/api-keys', 'GET /admin/audit', 'GET /admin/audit/settings']);
    });

    it('creates a key: the secret is shown once with a copy button, works at once, and is gone after “I have copied it”', async () => {
      await open('keys', 'API keys');
      const form = page.getByRole('form', { name: 'New key' });
      // An origin that is no origin: the API's 400 names the field and the form keeps what was typed.
      await form.getByLabel('Name').fill('desk viewer 只读');
      await form.getByLabel('Role').selectOption('viewer');
      await form.getByLabel(/^Allowed origins/).fill('shop.example.com');
      await form.getByRole('button', { name: 'Create key' }).click();
      await containsText(form.getByRole('alert'), 'The API answered 400');
      await containsText(form.getByRole('alert'), 'allowedOrigins');
      await hasValue(form.getByLabel('Name'), 'desk viewer 只读');
      expect((await keys()).some((k) => k.name === 'desk viewer 只读')).toBe(false);

      await form.getByLabel(/^Allowed origins/).fill('https://desk.example.com\nhttps://ops.example.com');
      await form.getByLabel(/^Expires/).fill('2030-01-15T09:30');
      await form.getByRole('button', { name: 'Create key' }).click();
      const secretBox = page.getByRole('region', { name: 'New secret' });
      await containsText(secretBox, 'Key “desk viewer 只读” created');
      await containsText(secretBox, 'shown only this once');
      const secret = await page.getByTestId('issued-secret').innerText();
      expect(secret).toMatch(/^ak_/);
      const created = (await keys()).find((k) => k.name === 'desk viewer 只读')!;
      expect(created).toMatchObject({ role: 'viewer', status: 'active', expiresAt: new Date(2030, 0, 15, 9, 30).toISOString() });
      expect(await statusWith(secret)).toBe(200);

      await secretBox.getByRole('button', { name: 'Copy' }).click();
      await containsText(secretBox.getByRole('status'), 'Copied to the clipboard.');
      expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(secret);

      const row = page.getByRole('table', { name: 'API keys' }).locator(`tr[data-key-id="${created.id}"]`);
      await containsText(row, 'viewer (read-only)');
      await containsText(row, '2030-01-15 09:30');
      await containsText(row, 'https://ops.example.com');
      expect(await row.innerText()).not.toContain(secret);
      expect(await form.getByLabel('Name').inputValue()).toBe('');

      await secretBox.getByRole('button', { name: 'I have copied it' }).click();
      await hasCount(page.getByRole('region', { name: 'New secret' }), 0);
      expect(await page.content()).not.toContain(secret);
      await page.reload();
      await visible(page.getByRole('table', { name: 'API keys' }).locator(`tr[data-key-id="${created.id}"]`));
      expect(await page.content()).not.toContain(secret);
    });

    it('rotates a key with a grace period: the new secret shown once, both work; revokes one after a confirmation', async () => {
      const key = await apiCall<Key>(api, 'POST', '/admin/api-keys', api.operatorKey, { name: 'rotate me', role: 'viewer' });
      await open('keys', 'API keys');
      const row = page.getByRole('table', { name: 'API keys' }).locator(`tr[data-key-id="${key.id}"]`);
      await row.getByRole('button', { name: 'Rotate the key rotate me' }).click();
      const rotateForm = row.getByRole('form', { name: 'Rotate the key rotate me' });
      await rotateForm.getByLabel('Old secret keeps working').selectOption('3600');
      await rotateForm.getByRole('button', { name: 'Rotate now' }).click();
      const secretBox = page.getByRole('region', { name: 'New secret' });
      await containsText(secretBox, 'Key “rotate me” rotated');
      const rotated = await page.getByTestId('issued-secret').innerText();
      expect(rotated).not.toBe(key.key);
      expect(await statusWith(rotated)).toBe(200);
      expect(await statusWith(key.key!)).toBe(200);
      const listed = (await keys()).find((k) => k.id === key.id)!;
      const graceLeft = Date.parse(listed.previousSecretValidUntil!) - Date.now();
      expect(graceLeft).toBeGreaterThan(3_500_000);
      expect(graceLeft).toBeLessThanOrEqual(3_600_000);
      await containsText(row, 'previous secret valid until');
      await secretBox.getByRole('button', { name: 'I have copied it' }).click();

      // Dismissed: nothing happens.
      page.once('dialog', (dialog) => void dialog.dismiss());
      await row.getByRole('button', { name: 'Revoke the key rotate me' }).click();
      await containsText(row, 'active');
      expect((await keys()).find((k) => k.id === key.id)!.status).toBe('active');

      let asked = '';
      page.once('dialog', (dialog) => {
        asked = dialog.message();
        void dialog.accept();
      });
      await row.getByRole('button', { name: 'Revoke the key rotate me' }).click();
      await containsText(row, 'revoked');
      expect(asked).toContain('Revoke the key “rotate me”?');
      expect((await keys()).find((k) => k.id === key.id)!.status).toBe('revoked');
      expect(await statusWith(rotated)).toBe(401);
      expect(await statusWith(key.key!)).toBe(401);
      await hasCount(row.getByRole('button'), 0);
    });

    it('the audit page shows the writes, filters them, loads more, exports the filtered CSV and sets the retention', async () => {
      // A write through the console: a key created on the keys page.
      await open('keys', 'API keys');
      const form = page.getByRole('form', { name: 'New key' });
      await form.getByLabel('Name').fill('audited key');
      await form.getByRole('button', { name: 'Create key' }).click();
      await visible(page.getByRole('region', { name: 'New secret' }));
      const audited = (await keys()).find((k) => k.name === 'audited key')!;
      // And 55 more entries through the API, so the log has more than one page of 50.
      for (let i = 0; i < 55; i++) await apiCall(api, 'PUT', '/admin/audit/settings', api.operatorKey, { retentionDays: 400 + i });
      await apiCall(api, 'DELETE', `/admin/api-keys/${audited.id}`, api.operatorKey);

      await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Audit log', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'Audit log', exact: true }).waitFor();
      const table = page.getByRole('table', { name: 'Audit log' });
      await hasCount(table.locator('tbody tr'), 50);
      const newest = table.locator('tbody tr').first();
      await containsText(newest, 'revoke');
      await containsText(newest, 'api_key');
      await containsText(newest, 'audited key');
      await containsText(newest, 'operator');
      const all = await apiCall<{ items: Entry[]; nextCursor: string | null }>(api, 'GET', '/admin/audit?limit=200', api.operatorKey);
      expect(all.nextCursor).toBeNull();
      expect(all.items.length).toBeGreaterThan(57);
      // "Load more" until the log ends: page after page of 50, appended.
      for (let shown = 50; shown < all.items.length; shown = Math.min(shown + 50, all.items.length)) {
        await page.getByRole('button', { name: 'Load more' }).click();
        await hasCount(table.locator('tbody tr'), Math.min(shown + 50, all.items.length));
      }
      await hasCount(page.getByRole('button', { name: 'Load more' }), 0);
      expect(await table.locator('tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-audit-id')))).toEqual(all.items.map((e) => e.id));
      // The key's creation, by the signed-in key, is among them.
      const creation = all.items.find((e) => e.action === 'create' && e.label === 'audited key')!;
      expect(creation.actor).toMatchObject({ kind: 'api_key', keyId: operatorKeyId, name: 'operator' });
      await containsText(table.locator(`tr[data-audit-id="${creation.id}"]`), 'create');

      const filters = page.getByRole('form', { name: 'Audit filters' });
      await filters.getByLabel('Resource type').fill('api_key');
      await filters.getByLabel('Action').fill('create');
      await filters.getByLabel('Actor').selectOption(operatorKeyId);
      await filters.getByRole('button', { name: 'Apply' }).click();
      const created = all.items.filter((e) => e.resourceType === 'api_key' && e.action === 'create' && e.actor.keyId === operatorKeyId);
      expect(created.length).toBeGreaterThanOrEqual(1);
      await hasCount(table.locator('tbody tr'), created.length);
      await containsText(table, 'audited key');

      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
      expect(download.suggestedFilename()).toMatch(/^audit-\d{4}-\d{2}-\d{2}\.csv$/);
      const csv = Papa.parse<Record<string, string>>(readFileSync((await download.path())!, 'utf8'), { header: true, skipEmptyLines: true });
      expect(csv.meta.fields).toEqual(expect.arrayContaining(['occurredAt', 'actorName', 'action', 'resourceType', 'label', 'requestId']));
      expect(csv.data.length).toBe(created.length);
      expect(csv.data.every((row) => row.action === 'create' && row.resourceType === 'api_key' && row.actorKeyId === operatorKeyId)).toBe(true);
      expect(csv.data.map((row) => row.label)).toContain('audited key');

      // A filter the API refuses: its 400 is shown.
      await filters.getByLabel('Action').fill('Not Snake');
      await filters.getByRole('button', { name: 'Apply' }).click();
      await containsText(page.getByRole('alert'), 'action must be snake_case');

      const retention = page.getByRole('form', { name: 'Retention' });
      await hasValue(retention.getByLabel(/^Days entries are kept/), '454');
      await retention.getByLabel(/^Days entries are kept/).fill('0');
      await retention.getByRole('button', { name: 'Save' }).click();
      await containsText(retention.getByRole('alert'), 'retentionDays');
      expect((await apiCall<{ retentionDays: number }>(api, 'GET', '/admin/audit/settings', api.operatorKey)).retentionDays).toBe(454);
      await retention.getByLabel(/^Days entries are kept/).fill('90');
      await retention.getByRole('button', { name: 'Save' }).click();
      await containsText(retention.getByRole('status'), 'Retention saved');
      expect((await apiCall<{ retentionDays: number }>(api, 'GET', '/admin/audit/settings', api.operatorKey)).retentionDays).toBe(90);
      expect(await seriousA11yViolations(page)).toEqual([]);
    });
  });

  describe('a viewer', () => {
    let viewer: Key;
    let hook: { id: string };

    beforeAll(async () => {
      viewer = await apiCall<Key>(api, 'POST', '/admin/api-keys', api.operatorKey, { name: 'night auditor', role: 'viewer' });
      hook = await apiCall<{ id: string }>(api, 'POST', '/admin/webhooks', api.operatorKey, { url: receiver.url, events: ['handoff.requested'] });
      // A bad case in the review queue, so the absent "Review" button is a hidden one, not a missing case; its
      // hand-off turn fails the webhook's delivery.
      await seedDemoTraffic(api);
      const deadline = Date.now() + 30_000;
      for (;;) {
        const state = await apiCall<{ enabled: boolean }>(api, 'GET', `/admin/webhooks/${hook.id}`, api.operatorKey);
        const deliveries = await apiCall<{ items: { status: string }[] }>(api, 'GET', `/admin/webhooks/${hook.id}/deliveries`, api.operatorKey);
        if (!state.enabled && deliveries.items.some((d) => d.status === 'failed')) break;
        if (Date.now() > deadline) throw new Error(`the webhook was not disabled with a failed delivery: ${JSON.stringify({ state, deliveries })}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }, 120_000);

    beforeEach(async () => {
      await signIn(page, api, viewer.key);
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    });

    it('is named in the header, sees no write control, and can still try a message and a lookup', async () => {
      const who = page.getByTestId('signed-in-as');
      await containsText(who, 'Signed in as night auditor');
      await containsText(who, 'viewer (read-only)');

      await open('intents', 'Intents');
      await visible(page.locator('.card', { hasText: 'Rules' }).locator('tbody tr').nth(3));
      await hasCount(page.getByRole('button', { name: 'New rule' }), 0);
      await hasCount(page.getByRole('button', { name: /^Edit/ }), 0);
      await visible(page.locator('.config-form input').first());
      await hasCount(page.locator('.config-form').getByRole('button', { name: 'Save' }), 0);
      expect(await page.locator('.config-form input[type="text"]').first().getAttribute('readonly')).not.toBeNull();
      await page.getByPlaceholder(/示教器黑屏怎么办/).fill('示教器黑屏怎么办');
      await page.getByRole('button', { name: 'Route' }).click();
      await containsText(page.getByTestId('route-result'), 'confidence');

      await open('knowledge', 'Knowledge');
      await visible(page.locator('.card', { hasText: 'Documents' }).locator('tbody tr').first());
      await hasCount(page.getByRole('form', { name: 'Upload a document' }), 0);
      await hasCount(page.getByRole('button', { name: /^Delete/ }), 0);
      await hasCount(page.locator('input[type="file"]'), 0);
      await page.getByPlaceholder(/示教器屏幕不亮了/).fill('示教器屏幕不亮了');
      await page.getByRole('button', { name: 'Look up' }).click();
      await containsText(page.getByTestId('lookup-result'), 'confidence');

      // A document's chunks: read, not edited.
      const docs = await apiCall<{ items: { id: string }[] }>(api, 'GET', '/admin/knowledge/documents?limit=1', api.operatorKey);
      await page.goto(`${api.baseUrl}/console/#/knowledge/${docs.items[0].id}`);
      await visible(page.locator('li.chunk').first());
      await hasCount(page.locator('li.chunk').getByRole('button'), 0);

      await open('review', 'Review queue');
      await visible(page.getByTestId('bad-case'));
      await visible(page.getByRole('heading', { level: 2, name: 'Case library' }));
      await hasCount(page.getByRole('button', { name: 'Review' }), 0);
      await hasCount(page.getByRole('button', { name: /^(Edit|Retract)/ }), 0);

      await open('keys', 'API keys');
      await containsText(page.locator('.hint').first(), 'viewer key');
      await visible(page.getByRole('table', { name: 'API keys' }).locator(`tr[data-key-id="${viewer.id}"]`));
      await containsText(page.getByRole('table', { name: 'API keys' }).locator(`tr[data-key-id="${viewer.id}"]`), 'the key you are signed in with');
      await hasCount(page.getByRole('form', { name: 'New key' }), 0);
      await hasCount(page.getByRole('button', { name: /^(Rotate|Revoke)/ }), 0);

      await open('audit', 'Audit log');
      await visible(page.getByRole('table', { name: 'Audit log' }).locator('tbody tr').first());
      await containsText(page.getByTestId('retention-days'), /Entries are kept \d+ days\./);
      await hasCount(page.getByRole('form', { name: 'Retention' }), 0);
      await visible(page.getByRole('button', { name: 'Export CSV' }));

      await open('webhooks', 'Webhooks');
      await containsText(page.getByRole('table', { name: 'Webhooks' }).locator('tbody tr'), 'disabled');
      await containsText(page.getByRole('table', { name: 'Deliveries' }).locator('tbody tr'), 'handoff.requested');
      await hasCount(page.getByRole('button', { name: /^(Enable|Redeliver)$/ }), 0);
      expect(await seriousA11yViolations(page)).toEqual([]);
    });
  });

  it('in Chinese: who is signed in, the keys and audit pages, with no serious or critical accessibility violation', async () => {
    const zhContext = await browser.newContext({ locale: 'zh-CN' });
    const zhPage = await zhContext.newPage();
    activePage = zhPage;
    await zhPage.goto(`${api.baseUrl}/console/`);
    await zhPage.getByLabel('运营密钥').fill(api.operatorKey);
    await zhPage.getByRole('button', { name: '登录' }).click();
    await zhPage.getByRole('heading', { level: 1, name: '总览' }).waitFor();
    await containsText(zhPage.getByTestId('signed-in-as'), '已登录：operator');
    await containsText(zhPage.getByTestId('signed-in-as'), '运营');
    await zhPage.goto(`${api.baseUrl}/console/#/keys`);
    await zhPage.getByRole('heading', { level: 1, name: 'API 密钥', exact: true }).waitFor();
    await visible(zhPage.getByRole('form', { name: '新建密钥' }));
    await containsText(zhPage.getByRole('table', { name: 'API 密钥' }), '当前登录所用的密钥');
    await zhPage.waitForLoadState('networkidle');
    expect(await seriousA11yViolations(zhPage)).toEqual([]);
    await zhPage.goto(`${api.baseUrl}/console/#/audit`);
    await zhPage.getByRole('heading', { level: 1, name: '审计日志', exact: true }).waitFor();
    await visible(zhPage.getByRole('button', { name: '导出 CSV' }));
    await visible(zhPage.getByRole('heading', { level: 2, name: '保留期限' }));
    await zhPage.waitForLoadState('networkidle');
    expect(await seriousA11yViolations(zhPage)).toEqual([]);
    await zhContext.close();
  });
});
