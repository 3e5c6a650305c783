import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { asTenantId } from '@arbiter/common';
import { JobsService } from '@arbiter/jobs';
import { SESSIONS_REPAIR_JOB } from '@arbiter/sessions';
import { FakeOpenAiServer, createTestDatabase, type FakeChatRequestBody, type TestDatabase } from '@arbiter/testing';
import { createTestApp, TEST_ADMIN_TOKEN, type TestApp } from '../support/test-app.js';

const isAgentRequest = (body: FakeChatRequestBody) => (body.tools ?? []).some((t) => t.function.name === 'lookup_knowledge');

/** Starts the API in a child process; resolves with its port. */
function startChild(databaseUrl: string, llmUrl: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(
    process.execPath,
    ['--import', './bench/support/register.mjs', 'test/faults/chat-crash-child.ts', databaseUrl, llmUrl, TEST_ADMIN_TOKEN],
    { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening (\d+)/.exec(out);
      if (match) resolve({ child, port: Number(match[1]) });
    });
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('exit', (code, signal) => reject(new Error(`child exited (${code ?? signal}) before listening: ${err.slice(-2000)}`)));
  });
}

/** Issue 11: kill -9 during a chat turn leaves the session RUNNING; the repair job closes it and runs its hooks. */
describe('faults: kill -9 during a chat turn (e2e, child process)', () => {
  const fake = new FakeOpenAiServer();
  let db: TestDatabase;
  let t: TestApp | undefined;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    await fake.start();
    db = await createTestDatabase();
  }, 240_000);
  afterAll(async () => {
    child?.kill('SIGKILL');
    await t?.close();
    await fake.stop();
    await db?.close();
  });

  it('the RUNNING session left by the killed process is closed FAILED with its hooks run; feedback then works', async () => {
    let agentCalled: () => void = () => undefined;
    const agentCall = new Promise<void>((resolve) => (agentCalled = resolve));
    // The agent's model call never answers (the turn is in flight when the process dies).
    fake.setChatHandler((body) => {
      if (!isAgentRequest(body)) return { kind: 'content', content: '{"confidence": 80, "reasoning": "ok"}' };
      agentCalled();
      return { kind: 'content', content: 'never sent', delayMs: 600_000 };
    });
    const started = await startChild(db.url, fake.baseUrl);
    child = started.child;
    const base = `http://127.0.0.1:${started.port}`;
    const tenantRes = await fetch(`${base}/admin/tenants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'crash' }),
    });
    expect(tenantRes.status).toBe(201);
    const tenant = (await tenantRes.json()) as { id: string; apiKeys: { client: string } };
    const turn = fetch(`${base}/ai/chat`, {
      method: 'POST',
      headers: { 'x-api-key': tenant.apiKeys.client, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'the arm shows alarm E201, what do I do?' }),
    }).catch(() => null);
    await agentCall;
    child.kill('SIGKILL');
    await new Promise((resolve) => child!.once('exit', resolve));
    expect(await turn).toBeNull(); // the connection died with the process

    const { rows } = await db.pool.query<{ id: string; status: string }>('SELECT id, status FROM diagnosis_session WHERE tenant_id = $1', [tenant.id]);
    expect(rows.map((r) => r.status)).toEqual(['RUNNING']);
    const sessionId = rows[0]!.id;

    // Another process later; the turn is now older than SESSION_RUNNING_TIMEOUT_MS (10 min by default).
    // The time is a value: Citus refuses `created_at - interval` (a STABLE function of a column) in an UPDATE (docs/SCALING.md "Running on Citus").
    await db.pool.query(`UPDATE diagnosis_session SET created_at = $2 WHERE id = $1`, [sessionId, new Date(Date.now() - 11 * 60_000)]);
    t = await createTestApp({}, db);
    const feedback = () =>
      t!.request({ method: 'POST', url: '/api/feedback', headers: { 'x-api-key': tenant.apiKeys.client }, payload: { sessionId, feedback: 'not_useful' } });
    expect((await feedback()).statusCode).toBe(409); // still RUNNING
    const jobs = t.app.get(JobsService);
    await jobs.enqueue(asTenantId(tenant.id), SESSIONS_REPAIR_JOB);
    await jobs.runPending();
    const after = await db.pool.query<{ status: string; error: string; hooks_done: boolean; self_evaluation: { confidence: number } | null }>(
      'SELECT status, error, hooks_done, self_evaluation FROM diagnosis_session WHERE id = $1',
      [sessionId],
    );
    expect(after.rows[0]).toMatchObject({ status: 'FAILED', hooks_done: true, self_evaluation: { confidence: 0 } });
    expect(after.rows[0]!.error).toMatch(/^abandoned:/);
    expect((await feedback()).statusCode).toBeLessThan(300);
  });
});
