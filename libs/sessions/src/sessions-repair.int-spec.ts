import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { asTenantId } from '@arbiter/common';
import { JobsService } from '@arbiter/jobs';
import { createTestApp, type TestApp, type TestTenant } from '../../../test/support/test-app.js';
import { SESSIONS_REPAIR_JOB } from './sessions-repair.job.js';

/** Issue 11: sessions left behind by a crashed process are closed and get their hooks' results. */
describe(`sessions.repair job (${process.env.TEST_DB ?? 'pglite'})`, () => {
  let t: TestApp;
  let tenant: TestTenant;
  let conversationId: string;

  const insert = async (fields: {
    status: string;
    outcome?: string | null;
    createdAgoMs: number;
    finishedAgoMs?: number | null;
    hooksDone: boolean;
    answer?: string | null;
  }) => {
    const { rows } = await t.db.pool.query<{ id: string }>(
      `INSERT INTO diagnosis_session (tenant_id, conversation_id, query, answer, status, outcome, source_references, knowledge_searched, step_count, tool_call_count,
                                      created_at, finished_at, hooks_done)
       VALUES ($1, $2, 'how do I reset the arm', $3, $4, $5, '[{"filePath":"manuals/reset.md","score":0.8}]', true, 2, 1,
               now() - make_interval(secs => $6::float8 / 1000), CASE WHEN $7::float8 IS NULL THEN NULL ELSE now() - make_interval(secs => $7::float8 / 1000) END, $8)
       RETURNING id`,
      [
        tenant.id,
        conversationId,
        fields.answer ?? null,
        fields.status,
        fields.outcome ?? null,
        fields.createdAgoMs,
        fields.finishedAgoMs ?? null,
        fields.hooksDone,
      ],
    );
    return rows[0]!.id;
  };
  const row = async (id: string) =>
    (
      await t.db.pool.query<{
        status: string;
        outcome: string | null;
        error: string | null;
        finished_at: Date | null;
        hooks_done: boolean;
        self_evaluation: { confidence: number } | null;
        decisions: number;
      }>(
        `SELECT s.status, s.outcome, s.error, s.finished_at, s.hooks_done, s.self_evaluation,
                (SELECT count(*)::int FROM coverage_decision d WHERE d.tenant_id = s.tenant_id AND d.session_id = s.id) AS decisions
           FROM diagnosis_session s WHERE s.id = $1`,
        [id],
      )
    ).rows[0]!;

  beforeAll(async () => {
    t = await createTestApp({ SESSION_RUNNING_TIMEOUT_MS: '600000' });
    tenant = await t.createTenant();
    conversationId = (await t.db.pool.query<{ id: string }>('INSERT INTO conversation (tenant_id) VALUES ($1) RETURNING id', [tenant.id])).rows[0]!.id;
  }, 240_000);
  afterAll(async () => {
    await t?.close();
  });

  it('closes a session RUNNING past SESSION_RUNNING_TIMEOUT_MS as FAILED, runs its hooks, leaves a fresh RUNNING one and repairs a committed ingest without hooks', async () => {
    const stale = await insert({ status: 'RUNNING', createdAgoMs: 11 * 60_000, hooksDone: false });
    const fresh = await insert({ status: 'RUNNING', createdAgoMs: 60_000, hooksDone: false });
    // An ingest committed 5 minutes ago whose process died before the hooks ran.
    const orphan = await insert({
      status: 'SUCCESS',
      outcome: 'SUCCESS',
      answer: 'Hold the reset button for 5 s.',
      createdAgoMs: 5 * 60_000,
      finishedAgoMs: 5 * 60_000,
      hooksDone: false,
    });
    // One that just committed: its hooks are probably running right now; not touched yet.
    const justFinished = await insert({ status: 'SUCCESS', outcome: 'SUCCESS', answer: 'ok', createdAgoMs: 1000, finishedAgoMs: 1000, hooksDone: false });

    const jobs = t.app.get(JobsService);
    const run = await jobs.enqueue(asTenantId(tenant.id), SESSIONS_REPAIR_JOB);
    expect(await jobs.runPending()).toBeGreaterThanOrEqual(1);
    const finished = await jobs.get(asTenantId(tenant.id), run!.id);
    expect(finished.status).toBe('succeeded');

    const closed = await row(stale);
    expect(closed).toMatchObject({ status: 'FAILED', outcome: 'FAILED', hooks_done: true });
    expect(closed.error).toMatch(/^abandoned: still RUNNING 600 s after it started/);
    expect(closed.finished_at).not.toBeNull();
    expect(closed.self_evaluation?.confidence).toBe(0); // the rule track: FAILED → 0

    expect(await row(fresh)).toMatchObject({ status: 'RUNNING', finished_at: null });

    const repaired = await row(orphan);
    expect(repaired).toMatchObject({ status: 'SUCCESS', hooks_done: true, decisions: 1 });
    expect(repaired.self_evaluation?.confidence).toBeGreaterThan(0);

    expect(await row(justFinished)).toMatchObject({ hooks_done: false, self_evaluation: null, decisions: 0 });

    // Idempotent: a second run finds nothing to do.
    await jobs.enqueue(asTenantId(tenant.id), SESSIONS_REPAIR_JOB);
    await jobs.runPending();
    expect((await row(orphan)).decisions).toBe(1);

    // The closed session is an ordinary FAILED one now: feedback is accepted (it answered 409 while RUNNING).
    const feedback = await t.request({
      method: 'POST',
      url: '/api/feedback',
      headers: { 'x-api-key': tenant.clientKey },
      payload: { sessionId: stale, feedback: 'not_useful' },
    });
    expect(feedback.statusCode).toBeLessThan(300);
  });

  it('a session ingested over the API has its hooks marked done', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/api/sessions',
      headers: { 'x-api-key': tenant.clientKey },
      payload: { query: 'q', answer: 'a', status: 'SUCCESS' },
    });
    expect(res.statusCode).toBe(201);
    expect((await row(res.json<{ id: string }>().id)).hooks_done).toBe(true);
  });
});
