/**
 * Child process for the kill -9 test (test/faults/crash-recovery.e2e-spec.ts): the real API on
 * DATABASE_URL with an LLM at LLM_BASE_URL, listening on a free port it prints as `listening <port>`.
 * Run with `node --import ./bench/support/register.mjs test/faults/chat-crash-child.ts <db-url> <llm-url> <admin-token>`.
 */
import { createApp } from '../../apps/api/src/create-app.js';

const [databaseUrl, llmUrl, adminToken] = process.argv.slice(2) as [string, string, string];
const app = await createApp({
  env: {
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl,
    ADMIN_TOKEN: adminToken,
    JOBS_ENABLED: 'false',
    SEED_DEMO: 'false',
    DB_POOL_MAX: '2',
    LLM_PROVIDER: 'openai',
    LLM_BASE_URL: llmUrl,
    LLM_API_KEY: 'k',
    LLM_MODEL: 'fake-model',
    LLM_TIMEOUT_MS: '600000',
    CHAT_TIMEOUT_MS: '600000',
  },
  logLevel: 'silent',
});
await app.listen(0, '127.0.0.1');
const address = app.getHttpServer().address() as { port: number };
process.stdout.write(`listening ${address.port}\n`);
