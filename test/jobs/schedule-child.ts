/**
 * Child process for the two-process exactly-once test (test/jobs/jobs-processes.e2e-spec.ts): boots
 * the real application on DATABASE_URL, defines a scheduled job, waits for "go" on stdin so both
 * processes hit the same cron tick together, creates that tick's runs and drains the queue.
 * Run with `node --import ./bench/support/register.mjs test/jobs/schedule-child.ts <databaseUrl>`.
 */
import { createInterface } from 'node:readline';
import { JobsService } from '@arbiter/jobs';
import { createApp } from '../../apps/api/src/create-app.js';

const [url] = process.argv.slice(2) as [string];
const app = await createApp({
  env: { NODE_ENV: 'test', DATABASE_URL: url, ADMIN_TOKEN: 'child-admin-token-0123456789', SEED_DEMO: 'false', JOBS_ENABLED: 'false', DB_POOL_MAX: '2' },
  logLevel: 'silent',
});
const jobs = app.get(JobsService);
let executed = 0;
jobs.defineAdHoc({
  name: 'test.two-process',
  cron: '*/5 * * * *',
  handler: async (ctx) => {
    executed++;
    await ctx.progress({ processed: 1 });
  },
});

process.stdout.write('ready\n');
const lines = createInterface({ input: process.stdin });
for await (const line of lines) if (line.trim() === 'go') break;

const tick = new Date('2031-03-01T10:05:00Z');
await jobs.enqueueDueSchedules(new Date(tick.getTime() - 60_000));
const created = await jobs.enqueueDueSchedules(new Date(tick.getTime() + 1000));
await jobs.runPending();
process.stdout.write(`result ${JSON.stringify({ created, executed })}\n`);
await app.close();
process.exit(0);
