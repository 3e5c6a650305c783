import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import type { TenantId } from '@arbiter/common';
import { CaseLibraryEntity, CaseLibraryRepository, CaseLibrarySettingsEntity, CaseLibraryVersionEntity } from '@arbiter/case-library';
import { detectSchemaDrift } from '@arbiter/database';
import { ConversationEntity, DiagnosisSessionEntity, SessionFeedbackState, ToolInvocationEntity } from '@arbiter/sessions';
import { newMediumTest, type MediumTest, type TestDatabase } from '@arbiter/testing';
import { BadCaseRepository } from './bad-case.repository.js';
import { BadCaseLabelEntity } from './entities/bad-case-label.entity.js';
import { SessionFeedbackEntity } from './entities/session-feedback.entity.js';
import { FeedbackRepository } from './feedback.repository.js';

const DOC = '6f1c2d3e-4a5b-4c6d-8e7f-0a1b2c3d4e5f';
const RULE = '11111111-1111-4111-8111-111111111111';

describe('bad-case review on a real database (migration 0170)', () => {
  let medium: MediumTest;
  let db: TestDatabase;
  let ds: DataSource;
  let repo: BadCaseRepository;
  let feedback: FeedbackRepository;
  let tenant: TenantId;
  let other: TenantId;

  async function badCase(t: TenantId, query = '示教器黑屏怎么办', intent: string | null = 'pendant'): Promise<string> {
    const conv = await db.pool.query<{ id: string }>(`INSERT INTO conversation (tenant_id) VALUES ($1) RETURNING id`, [t]);
    const s = await db.pool.query<{ id: string }>(
      `INSERT INTO diagnosis_session (tenant_id, conversation_id, query, answer, status, intent) VALUES ($1, $2, $3, '重启', 'SUCCESS', $4) RETURNING id`,
      [t, conv.rows[0].id, query, intent],
    );
    const id = s.rows[0].id;
    await feedback.applyFeedback(t, id, 'not_useful', undefined);
    return id;
  }
  const stored = async (sid: string) =>
    (
      await db.pool.query<Record<string, unknown>>(
        `SELECT intent, rule_id, example, document_id, note, status, resolved_at IS NOT NULL AS resolved FROM bad_case_label WHERE session_id = $1`,
        [sid],
      )
    ).rows;

  beforeAll(async () => {
    medium = await newMediumTest({
      entities: [
        ConversationEntity,
        DiagnosisSessionEntity,
        ToolInvocationEntity,
        SessionFeedbackEntity,
        CaseLibraryEntity,
        CaseLibrarySettingsEntity,
        CaseLibraryVersionEntity,
        BadCaseLabelEntity,
      ],
      max: 4,
    });
    db = medium.db;
    ds = medium.dataSource;
    repo = await medium.service(BadCaseRepository);
    feedback = await medium.service(FeedbackRepository, [SessionFeedbackState, CaseLibraryRepository]);
    [tenant, other] = await medium.tenants('br-a', 'br-b');
  });
  afterAll(() => medium?.close());

  it('migration 0170 and the entity match (no drift)', async () => {
    expect(await detectSchemaDrift(ds)).toEqual([]);
  });

  it('a partial review creates the record, sets only what it names, null clears; resolve keeps its first time, reopen clears it', async () => {
    const sid = await badCase(tenant);
    const first = await repo.upsertReview(tenant, sid, { documentId: DOC });
    expect(first).toMatchObject({ sessionId: sid, intent: null, ruleId: null, example: null, documentId: DOC, note: null, status: 'OPEN', resolvedAt: null });

    await repo.upsertReview(tenant, sid, { note: '文档第 3 节', intent: 'pendant' });
    expect(await stored(sid)).toEqual([
      { intent: 'pendant', rule_id: null, example: null, document_id: DOC, note: '文档第 3 节', status: 'OPEN', resolved: false },
    ]);

    const resolved = await repo.upsertReview(tenant, sid, { status: 'RESOLVED' });
    expect(resolved?.resolvedAt).toBeInstanceOf(Date);
    const again = await repo.upsertReview(tenant, sid, { status: 'RESOLVED', note: null });
    expect(again?.resolvedAt?.getTime()).toBe(resolved?.resolvedAt?.getTime());
    expect(again).toMatchObject({ note: null, documentId: DOC, intent: 'pendant', status: 'RESOLVED' });

    const reopened = await repo.upsertReview(tenant, sid, { status: 'OPEN', documentId: null, intent: null });
    expect(reopened).toMatchObject({ status: 'OPEN', resolvedAt: null, documentId: null, intent: null });

    // Resolving a case that has no record yet.
    const fresh = await badCase(tenant, '急停复位');
    expect(await repo.upsertReview(tenant, fresh, { status: 'RESOLVED' })).toMatchObject({ status: 'RESOLVED', resolvedAt: expect.any(Date) });
  });

  it('writes nothing for a session that is not a bad case of the tenant', async () => {
    const sid = await badCase(tenant);
    expect(await repo.upsertReview(other, sid, { note: 'x' })).toBeNull();
    expect(await repo.upsertReview(tenant, '00000000-0000-4000-8000-000000000000', { note: 'x' })).toBeNull();
    expect(await stored(sid)).toEqual([]);
    // Once the feedback is useful, it is no bad case: an existing record is not written either.
    await repo.upsertReview(tenant, sid, { note: 'before' });
    await db.pool.query(`UPDATE session_feedback SET feedback = 'useful' WHERE session_id = $1`, [sid]);
    expect(await repo.upsertReview(tenant, sid, { note: 'after' })).toBeNull();
    expect((await stored(sid))[0]).toMatchObject({ note: 'before' });
  });

  it('the database refuses a note over 1,000 characters and an unknown status', async () => {
    const sid = await badCase(tenant);
    await expect(repo.upsertReview(tenant, sid, { note: 'x'.repeat(1001) })).rejects.toThrow(/chk_bad_case_label_note_length/);
    await expect(repo.upsertReview(tenant, sid, { status: 'DONE' as 'OPEN' })).rejects.toThrow(/chk_bad_case_label_status/);
    expect(await stored(sid)).toEqual([]);
    expect(await repo.upsertReview(tenant, sid, { note: 'x'.repeat(1000) })).toMatchObject({ note: 'x'.repeat(1000) });
  });

  it('accept-example and the review share the record without clobbering each other', async () => {
    const sid = await badCase(tenant);
    await repo.upsertReview(tenant, sid, { documentId: DOC, note: 'n', status: 'RESOLVED' });
    await repo.upsertLabel(tenant, sid, { intent: 'cooling', ruleId: RULE, example: 'q' });
    expect(await stored(sid)).toEqual([{ intent: 'cooling', rule_id: RULE, example: 'q', document_id: DOC, note: 'n', status: 'RESOLVED', resolved: true }]);
    await repo.upsertReview(tenant, sid, { note: 'm', intent: 'fault' });
    expect(await stored(sid)).toEqual([{ intent: 'fault', rule_id: RULE, example: 'q', document_id: DOC, note: 'm', status: 'RESOLVED', resolved: true }]);
  });

  // Deterministic interleaving: one writer holds its (new, uncommitted) row in its open transaction (its audit
  // recorder waits) while the other writes; on PostgreSQL the second waits on the row (checked in pg_stat_activity),
  // on PGlite it waits for the transaction.
  it.each([
    ['accept-example first, the review waits', 'label'],
    ['the review first, accept-example waits', 'review'],
  ] as const)('concurrent writers on one new record lose nothing: %s', async (_name, first) => {
    const sid = await badCase(tenant);
    const label = { intent: 'cooling', ruleId: RULE, example: 'q' };
    const review = { documentId: DOC, note: 'n', status: 'RESOLVED' as const };
    let wrote!: () => void;
    let release!: () => void;
    const written = new Promise<void>((resolve) => (wrote = resolve));
    const held = new Promise<void>((resolve) => (release = resolve));
    const hold = async (): Promise<void> => {
      wrote();
      await held;
    };
    const firstWriter = first === 'label' ? repo.upsertLabel(tenant, sid, label, hold) : repo.upsertReview(tenant, sid, review, hold);
    try {
      await written;
      const second = first === 'label' ? repo.upsertReview(tenant, sid, review) : repo.upsertLabel(tenant, sid, label);
      if (db.kind !== 'pglite') {
        const deadline = Date.now() + 10_000;
        // On a Citus cluster the rows, and so the wait, are on a worker: every node's pg_stat_activity is asked.
        const lockWaits = `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`;
        const waitingSql =
          db.kind === 'citus'
            ? `SELECT 1 FROM run_command_on_all_nodes($$SELECT count(*) FROM (${lockWaits}) w$$) WHERE success AND result::int > 0`
            : lockWaits;
        for (;;) {
          const waiting = await db.pool.query(waitingSql);
          if (waiting.rowCount) break;
          if (Date.now() > deadline) throw new Error('the second writer never waited on the first');
          await new Promise((r) => setTimeout(r, 10));
        }
      }
      release();
      await firstWriter;
      await second;
    } finally {
      release();
      await firstWriter.catch(() => undefined);
    }
    expect(await stored(sid)).toEqual([{ intent: 'cooling', rule_id: RULE, example: 'q', document_id: DOC, note: 'n', status: 'RESOLVED', resolved: true }]);
  });

  it('the status filter of the queue: a case without a record is OPEN; tenant-scoped', async () => {
    const [t] = await medium.tenants('br-c');
    const none = await badCase(t, 'q1');
    const open = await badCase(t, 'q2');
    const done = await badCase(t, 'q3');
    await repo.upsertReview(t, open, { note: 'x' });
    await repo.upsertReview(t, done, { status: 'RESOLVED' });
    const ids = async (status?: 'OPEN' | 'RESOLVED') => (await repo.listBadCases(t, 50, 'v1', undefined, status)).map((r) => r.sessionId).sort();
    expect(await ids()).toEqual([none, open, done].sort());
    expect(await ids('OPEN')).toEqual([none, open].sort());
    expect(await ids('RESOLVED')).toEqual([done]);
    // Paging under the filter: one per page.
    const page1 = await repo.listBadCases(t, 1, 'v1', undefined, 'OPEN');
    const page2 = await repo.listBadCases(t, 1, 'v1', { createdAt: page1[0].cursorTs, id: page1[0].cursorId }, 'OPEN');
    expect([...page1, ...page2].map((r) => r.sessionId).sort()).toEqual([none, open].sort());
    expect((await repo.findBadCase(t, done, 'v1'))?.sessionId).toBe(done);
    expect(await repo.findBadCase(other, done, 'v1')).toBeNull();
    expect(await repo.listBadCases(other, 50, 'v1', undefined, 'RESOLVED')).toEqual([]);
  });

  it('a record without an intent is no label to the failure facts', async () => {
    const [t] = await medium.tenants('br-d');
    const sid = await badCase(t, 'q', 'pendant');
    await repo.upsertReview(t, sid, { documentId: DOC });
    const [group] = await repo.badCaseFacts(t, 'v1', null, null);
    expect(group).toMatchObject({ count: 1, ff_label_disagrees: false });
    await repo.upsertReview(t, sid, { intent: 'cooling' });
    expect((await repo.badCaseFacts(t, 'v1', null, null))[0]).toMatchObject({ ff_label_disagrees: true });
  });

  it('bad cases and their labels are the tenant’s own', async () => {
    const conv = await db.pool.query<{ id: string }>(`INSERT INTO conversation (tenant_id) VALUES ($1) RETURNING id`, [tenant]);
    const s = await db.pool.query<{ id: string }>(
      `INSERT INTO diagnosis_session (tenant_id, conversation_id, query, answer, status) VALUES ($1, $2, '  示教器黑屏怎么办 ', '请按住急停复位键三秒', 'SUCCESS') RETURNING id`,
      [tenant, conv.rows[0].id],
    );
    const sid = s.rows[0].id;
    expect(await repo.badCaseQuestion(tenant, sid)).toBeNull(); // no feedback yet
    await feedback.applyFeedback(tenant, sid, 'not_useful', undefined);
    expect(await repo.badCaseQuestion(tenant, sid)).toEqual({ query: '  示教器黑屏怎么办 ', intent: null });
    expect(await repo.badCaseQuestion(other, sid)).toBeNull();

    const ruleId = '11111111-1111-4111-8111-111111111111';
    const first = await repo.upsertLabel(tenant, sid, { intent: 'pendant', ruleId, example: '示教器黑屏怎么办' });
    expect(first).toMatchObject({ sessionId: sid, intent: 'pendant', ruleId, example: '示教器黑屏怎么办' });
    const relabel = await repo.upsertLabel(tenant, sid, { intent: 'power', ruleId: null, example: null });
    expect(relabel).toMatchObject({ intent: 'power', ruleId: null, example: null });
    expect((await repo.labels(tenant, [sid])).get(sid)).toMatchObject({ intent: 'power' });
    expect((await repo.labels(other, [sid])).size).toBe(0);
    expect((await repo.labels(tenant, [])).size).toBe(0);
  });
});
