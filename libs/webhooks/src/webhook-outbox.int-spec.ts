import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { newMediumTest, type MediumTest, type TestDatabase } from '@arbiter/testing';

/**
 * The outbox (migration 0230; docs/webhooks.md "How events travel"): each cause writes its event in its own
 * transaction — committed with it, gone with its rollback — and only for tenants subscribed to the type.
 * Statements here are the ones the owner libs run (the chat's finish UPDATE, the feedback upsert, the coverage
 * INSERT, the job queue's fail UPDATE), on one connection inside BEGIN … COMMIT/ROLLBACK.
 */
describe(`webhook outbox triggers (${process.env.TEST_DB ?? 'pglite'})`, () => {
  let medium: MediumTest;
  let db: TestDatabase;
  let tenant: string;
  let unsubscribed: string;

  const events = async (t: string, type?: string) =>
    (
      await db.pool.query<{ type: string; payload: Record<string, unknown> }>(
        `SELECT type, payload FROM webhook_event WHERE tenant_id = $1 AND ($2::varchar IS NULL OR type = $2) ORDER BY created_at, id`,
        [t, type ?? null],
      )
    ).rows;

  async function inTransaction(work: (client: pg.PoolClient) => Promise<void>, outcome: 'COMMIT' | 'ROLLBACK'): Promise<void> {
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      await work(client);
      await client.query(outcome);
    } finally {
      client.release();
    }
  }

  async function runningSession(t: string, conversationId: string | null, query: string): Promise<{ id: string; conversationId: string }> {
    const conv = conversationId ?? (await db.pool.query<{ id: string }>('INSERT INTO conversation (tenant_id) VALUES ($1) RETURNING id', [t])).rows[0]!.id;
    const id = (
      await db.pool.query<{ id: string }>(
        `INSERT INTO diagnosis_session (tenant_id, conversation_id, query, status) VALUES ($1, $2, $3, 'RUNNING') RETURNING id`,
        [t, conv, query],
      )
    ).rows[0]!.id;
    return { id, conversationId: conv };
  }

  const finish = (client: pg.PoolClient | pg.Pool, t: string, sessionId: string, shouldTransfer: boolean, status = 'SUCCESS') =>
    client.query(
      `UPDATE diagnosis_session SET status = $3, answer = 'reply', finished_at = now(), intent = 'refund',
              source_references = '[{"filePath":"docs/refund.md","title":"Refunds","score":0.42}]',
              route_trace = jsonb_build_object('finalConfidence', 0.61, 'chat', jsonb_build_object('shouldTransfer', $4::boolean, 'confidence', jsonb_build_object('source', 'retrieval', 'score', 0.42)))
        WHERE tenant_id = $1 AND id = $2`,
      [t, sessionId, status, shouldTransfer],
    );

  beforeAll(async () => {
    medium = await newMediumTest();
    db = medium.db;
    [tenant, unsubscribed] = await medium.tenants('outbox-a', 'outbox-b');
    await db.pool.query(
      `INSERT INTO webhook_subscription (tenant_id, url, events, secret)
       VALUES ($1, 'https://desk.example.com/h', ARRAY['handoff.requested', 'feedback.bad_case', 'coverage.uncovered', 'job.failed'], 'whsec_x')`,
      [tenant],
    );
    // The other tenant subscribes to a type none of these causes produce for it, so its events must stay empty.
    await db.pool.query(
      `INSERT INTO webhook_subscription (tenant_id, url, events, secret) VALUES ($1, 'https://desk.example.com/h', ARRAY['job.failed'], 'whsec_y')`,
      [unsubscribed],
    );
  }, 240_000);
  afterAll(() => medium?.close());
  beforeEach(async () => {
    await db.pool.query('DELETE FROM webhook_event');
  });

  it('handoff.requested: written by the turn finish that commits, with the transcript, references and confidences', async () => {
    const first = await runningSession(tenant, null, 'how do I get a refund?');
    await finish(db.pool, tenant, first.id, false);
    const second = await runningSession(tenant, first.conversationId, 'still not working');
    await inTransaction((c) => finish(c, tenant, second.id, true).then(() => undefined), 'COMMIT');

    const written = await events(tenant);
    expect(written).toHaveLength(1);
    expect(written[0]!.type).toBe('handoff.requested');
    const payload = written[0]!.payload as { sessionId: string; conversationId: string; transcript: Record<string, unknown>[]; turn: Record<string, unknown> };
    expect(payload.sessionId).toBe(second.id);
    expect(payload.conversationId).toBe(first.conversationId);
    expect(payload.transcript.map((t) => t.user)).toEqual(['how do I get a refund?', 'still not working']);
    expect(payload.transcript.map((t) => t.shouldTransfer)).toEqual([false, true]);
    expect(payload.turn).toMatchObject({
      sessionId: second.id,
      assistant: 'reply',
      intent: 'refund',
      references: [{ filePath: 'docs/refund.md', title: 'Refunds', score: 0.42 }],
      confidences: { routing: 0.61, reply: { source: 'retrieval', score: 0.42 } },
    });
  });

  it('handoff.requested: a rolled-back turn writes nothing; a turn without shouldTransfer writes nothing', async () => {
    const rolled = await runningSession(tenant, null, 'rolled back');
    await inTransaction((c) => finish(c, tenant, rolled.id, true).then(() => undefined), 'ROLLBACK');
    const answered = await runningSession(tenant, null, 'answered');
    await finish(db.pool, tenant, answered.id, false);
    expect(await events(tenant)).toEqual([]);
    // The rolled-back session is still RUNNING; finishing it for real writes its event once.
    await finish(db.pool, tenant, rolled.id, true, 'FAILED');
    expect((await events(tenant)).map((e) => e.type)).toEqual(['handoff.requested']);
  });

  it('writes nothing for a tenant without an enabled subscription to the type', async () => {
    const s = await runningSession(unsubscribed, null, 'hand me over');
    await finish(db.pool, unsubscribed, s.id, true);
    await db.pool.query(`UPDATE webhook_subscription SET enabled = false WHERE tenant_id = $1`, [tenant]);
    try {
      const t = await runningSession(tenant, null, 'hand me over');
      await finish(db.pool, tenant, t.id, true);
      expect(await events(tenant)).toEqual([]);
      expect(await events(unsubscribed)).toEqual([]);
    } finally {
      await db.pool.query(`UPDATE webhook_subscription SET enabled = true WHERE tenant_id = $1`, [tenant]);
    }
  });

  it('feedback.bad_case: each turn to not_useful, in the feedback transaction; a rollback writes nothing', async () => {
    const s = await runningSession(tenant, null, 'bad answer');
    await finish(db.pool, tenant, s.id, false);
    const upsert = (client: pg.PoolClient | pg.Pool, value: string) =>
      client.query(
        `INSERT INTO session_feedback (tenant_id, session_id, feedback, comment, status_before) VALUES ($1, $2, $3, 'wrong model', 'SUCCESS')
         ON CONFLICT (tenant_id, session_id) DO UPDATE SET feedback = EXCLUDED.feedback, comment = EXCLUDED.comment, updated_at = EXCLUDED.updated_at`,
        [tenant, s.id, value],
      );
    await inTransaction((c) => upsert(c, 'not_useful').then(() => undefined), 'ROLLBACK');
    expect(await events(tenant)).toEqual([]);
    await upsert(db.pool, 'not_useful');
    await upsert(db.pool, 'not_useful'); // a repeat is not a new bad case
    await upsert(db.pool, 'useful');
    await upsert(db.pool, 'not_useful');
    const written = await events(tenant, 'feedback.bad_case');
    expect(written).toHaveLength(2);
    expect(written[0]!.payload).toMatchObject({ sessionId: s.id, comment: 'wrong model', turn: { user: 'bad answer', assistant: 'reply' } });
  });

  it('coverage.uncovered: an uncovered decision only, in the decision transaction', async () => {
    const s = await runningSession(tenant, null, 'E202 on the panel');
    await finish(db.pool, tenant, s.id, false);
    const decide = (client: pg.PoolClient | pg.Pool, version: string, verdict: string, reason: string) =>
      client.query(
        `INSERT INTO coverage_decision (session_id, evaluator_version, tenant_id, channel, verdict, reason_code, reference_count, top_score, gap_key, session_created_at)
         VALUES ($1, $2, $3, 'web', $4, $5, 0, 0, 'e202onthepanel', now())`,
        [s.id, version, tenant, verdict, reason],
      );
    await inTransaction((c) => decide(c, 'v1', 'uncovered', 'uncovered_no_references').then(() => undefined), 'ROLLBACK');
    await decide(db.pool, 'v2', 'covered', 'covered_has_references');
    expect(await events(tenant)).toEqual([]);
    await decide(db.pool, 'v1', 'uncovered', 'uncovered_no_references');
    const written = await events(tenant);
    expect(written.map((e) => e.type)).toEqual(['coverage.uncovered']);
    expect(written[0]!.payload).toMatchObject({ sessionId: s.id, reasonCode: 'uncovered_no_references', query: 'E202 on the panel', evaluatorVersion: 'v1' });
  });

  it("job.failed: a run's final failure only (not a retry, not the webhooks' own job), in the fail transaction", async () => {
    const run = async (name: string) =>
      (
        await db.pool.query<{ id: string }>(`INSERT INTO job_run (tenant_id, name, trigger, status) VALUES ($1, $2, 'manual', 'running') RETURNING id`, [
          tenant,
          name,
        ])
      ).rows[0]!.id;
    const fail = (client: pg.PoolClient | pg.Pool, id: string, status: string) =>
      client.query(`UPDATE job_run SET status = $3, error = 'boom', finished_at = now() WHERE tenant_id = $1 AND id = $2`, [tenant, id, status]);
    const retried = await run('coverage.backfill');
    await fail(db.pool, retried, 'queued');
    const rolled = await run('coverage.backfill');
    await inTransaction((c) => fail(c, rolled, 'failed').then(() => undefined), 'ROLLBACK');
    const own = await run('webhooks.deliver');
    await fail(db.pool, own, 'failed');
    expect(await events(tenant)).toEqual([]);
    const failed = await run('retrieval.reembed');
    await fail(db.pool, failed, 'failed');
    const written = await events(tenant);
    expect(written.map((e) => e.type)).toEqual(['job.failed']);
    expect(written[0]!.payload).toMatchObject({ runId: failed, name: 'retrieval.reembed', error: 'boom' });
  });
});
