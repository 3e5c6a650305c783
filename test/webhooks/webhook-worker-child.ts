/**
 * Child process for the webhook crash test (test/webhooks/webhooks-crash.e2e-spec.ts): the real app with its job
 * worker on DATABASE_URL, delivering webhooks to 127.0.0.1; prints `ready` once booted.
 * Run with `node --import ./bench/support/register.mjs test/webhooks/webhook-worker-child.ts <db-url> <admin-token>`.
 */
import { createApp } from '../../apps/api/src/create-app.js';

const [databaseUrl, adminToken] = process.argv.slice(2) as [string, string];
const app = await createApp({
  env: {
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl,
    ADMIN_TOKEN: adminToken,
    SEED_DEMO: 'false',
    DB_POOL_MAX: '2',
    JOBS_ENABLED: 'true',
    JOBS_POLL_INTERVAL_MS: '200',
    JOBS_LEASE_MS: '2000',
    JOBS_SCHEDULES: JSON.stringify({ 'coverage.backfill': 'off', 'sessions.repair': 'off', 'evaluation.retry-fallbacks': 'off' }),
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    WEBHOOK_DISPATCH_INTERVAL_MS: '200',
    // Long enough that the first attempt is still waiting on the hanging receiver when the process is killed.
    WEBHOOK_TIMEOUT_MS: '60000',
  },
  logLevel: 'silent',
});
await app.init();
process.stdout.write('ready\n');
