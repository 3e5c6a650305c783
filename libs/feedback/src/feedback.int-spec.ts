import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import type { TenantId } from '@arbiter/common';
import { CaseLibraryEntity, CaseLibraryRepository } from '@arbiter/case-library';
import { detectSchemaDrift } from '@arbiter/database';
import { ConversationEntity, DiagnosisSessionEntity, SessionFeedbackState, ToolInvocationEntity, attributeFailure, factsFromRow } from '@arbiter/sessions';
import { newMediumTest, type MediumTest, type TestDatabase } from '@arbiter/testing';
import { dataSourceRoundTripCounter } from '../../../test/support/round-trips.js';
import { BadCaseRepository } from './bad-case.repository.js';
import { SessionFeedbackEntity } from './entities/session-feedback.entity.js';
import { FeedbackRepository } from './feedback.repository.js';

describe('FeedbackRepository on a real database', () => {
  let medium: MediumTest;
  let db: TestDatabase;
  let ds: DataSource;
  let repo: FeedbackRepository;
  let badCases: BadCaseRepository;
  let cases: CaseLibraryRepository;
  let tenant: TenantId;
  let other: TenantId;
  /** Statements (round trips) the repository's pool sent while `fn` ran. */
  async function statementsOf(fn: () => Promise<unknown>): Promise<string[]> {
    const counter = dataSourceRoundTripCounter(ds);
    try {
      return (await counter.measure(fn)).trips.statements;
    } finally {
      counter.restore();
    }
  }

  async function session(tenantId: TenantId, status: string, answer: string | null = '请按住急停复位键三秒'): Promise<string> {
    const conv = await db.pool.query<{ id: string }>(`INSERT INTO conversation (tenant_id) VALUES ($1) RETURNING id`, [tenantId]);
    const s = await db.pool.query<{ id: string }>(
      `INSERT INTO diagnosis_session (tenant_id, conversation_id, query, answer, status) VALUES ($1, $2, '机械臂怎么复位', $3, $4) RETURNING id`,
      [tenantId, conv.rows[0].id, answer, status],
    );
    return s.rows[0].id;
  }

  async function state(sessionId: string): Promise<{
    status: string;
    feedback: string | null;
    cases: { retracted: boolean; source_type: string }[];
    fb: { feedback: string; status_before: string }[];
  }> {
    const s = await db.pool.query('SELECT status, feedback FROM diagnosis_session WHERE id = $1', [sessionId]);
    const cases = await db.pool.query('SELECT retracted_at IS NOT NULL AS retracted, source_type FROM case_library WHERE session_id = $1', [sessionId]);
    const fb = await db.pool.query('SELECT feedback, status_before FROM session_feedback WHERE session_id = $1', [sessionId]);
    return { ...s.rows[0], cases: cases.rows, fb: fb.rows };
  }

  beforeAll(async () => {
    medium = await newMediumTest({
      entities: [ConversationEntity, DiagnosisSessionEntity, ToolInvocationEntity, SessionFeedbackEntity, CaseLibraryEntity],
      max: 8,
    });
    db = medium.db;
    ds = medium.dataSource;
    const database = medium.database;
    cases = new CaseLibraryRepository(database);
    repo = new FeedbackRepository(database, new SessionFeedbackState(), cases);
    badCases = new BadCaseRepository(database);
    [tenant, other] = await medium.tenants('fb-a', 'fb-b');
  });
  afterAll(() => medium?.close());

  it('migration 0030 and the feedback entities match (no drift)', async () => {
    expect(await detectSchemaDrift(ds)).toEqual([]);
  });

  it('walks useful → not_useful → useful: case created, retracted, restored; status restored', async () => {
    const id = await session(tenant, 'SUCCESS');
    const first = await repo.applyFeedback(tenant, id, 'useful', 'great');
    expect(first).toMatchObject({ kind: 'ok', changed: true, status: 'SUCCESS', caseEvent: 'created', caseId: expect.any(String) });
    expect(await state(id)).toMatchObject({ status: 'SUCCESS', feedback: 'useful', cases: [{ retracted: false, source_type: 'AUTO' }] });

    expect(await repo.applyFeedback(tenant, id, 'useful', undefined)).toMatchObject({
      kind: 'ok',
      changed: false,
      caseId: first.kind === 'ok' ? first.caseId : '',
    });

    expect(await repo.applyFeedback(tenant, id, 'not_useful', 'wrong part')).toMatchObject({
      kind: 'ok',
      status: 'BAD_CASE',
      caseEvent: 'retracted',
      caseId: null,
    });
    expect(await state(id)).toMatchObject({
      status: 'BAD_CASE',
      feedback: 'not_useful',
      cases: [{ retracted: true }],
      fb: [{ feedback: 'not_useful', status_before: 'SUCCESS' }],
    });

    const back = await repo.applyFeedback(tenant, id, 'useful', undefined);
    expect(back).toMatchObject({ kind: 'ok', status: 'SUCCESS', caseEvent: 'restored' });
    expect(back.kind === 'ok' && first.kind === 'ok' && back.caseId === first.caseId).toBe(true);
    expect(await state(id)).toMatchObject({ status: 'SUCCESS', feedback: 'useful', cases: [{ retracted: false }] });
  });

  it('feedback posts move the case library version (AUTO case created, retracted, restored), through the trigger', async () => {
    const version = async (t: TenantId): Promise<string> => (await cases.versions([t])).get(t) ?? '0';
    const before = Number(await version(other));
    const sid = await session(other, 'SUCCESS');
    await repo.applyFeedback(other, sid, 'useful', undefined);
    expect(Number(await version(other))).toBe(before + 1);
    await repo.applyFeedback(other, sid, 'useful', undefined); // unchanged: no write
    expect(Number(await version(other))).toBe(before + 1);
    await repo.applyFeedback(other, sid, 'not_useful', undefined);
    expect(Number(await version(other))).toBe(before + 2);
    await repo.applyFeedback(other, sid, 'useful', undefined);
    expect(Number(await version(other))).toBe(before + 3);
  });

  it('restores FAILED after not_useful and refuses useful on a FAILED run, writing nothing', async () => {
    const id = await session(tenant, 'FAILED', null);
    expect(await repo.applyFeedback(tenant, id, 'useful', undefined)).toEqual({ kind: 'rejected', reason: 'NO_ANSWER_TO_KEEP' });
    expect(await state(id)).toMatchObject({ status: 'FAILED', feedback: null, cases: [], fb: [] });
    expect(await repo.applyFeedback(tenant, id, 'not_useful', undefined)).toMatchObject({ kind: 'ok', status: 'BAD_CASE' });
    expect(await repo.applyFeedback(tenant, id, 'useful', undefined)).toEqual({ kind: 'rejected', reason: 'NO_ANSWER_TO_KEEP' });
    expect(await state(id)).toMatchObject({ status: 'BAD_CASE', fb: [{ status_before: 'FAILED' }] });
  });

  it('refuses RUNNING sessions and does not see other tenants', async () => {
    const running = await session(tenant, 'RUNNING');
    expect(await repo.applyFeedback(tenant, running, 'not_useful', undefined)).toEqual({ kind: 'rejected', reason: 'SESSION_NOT_FINISHED' });
    const foreign = await session(other, 'SUCCESS');
    expect(await repo.applyFeedback(tenant, foreign, 'useful', undefined)).toEqual({ kind: 'not_found' });
    expect(await state(foreign)).toMatchObject({ status: 'SUCCESS', feedback: null, cases: [] });
  });

  it('a first post is two statements (read, then one CTE write), a repeat one read, a rejection one read (docs/hot-paths.md)', async () => {
    const id = await session(tenant, 'SUCCESS');
    expect(await statementsOf(() => repo.applyFeedback(tenant, id, 'useful', undefined))).toHaveLength(2);
    expect(await statementsOf(() => repo.applyFeedback(tenant, id, 'useful', undefined))).toHaveLength(1);
    expect(await statementsOf(() => repo.applyFeedback(tenant, id, 'not_useful', undefined))).toHaveLength(2);
    const running = await session(tenant, 'RUNNING');
    expect(await statementsOf(() => repo.applyFeedback(tenant, running, 'useful', undefined))).toHaveLength(1);
  });

  it('50 concurrent identical posts create exactly one case', async () => {
    const id = await session(tenant, 'SUCCESS');
    const results = await Promise.all(Array.from({ length: 50 }, () => repo.applyFeedback(tenant, id, 'useful', undefined)));
    expect(results.every((r) => r.kind === 'ok')).toBe(true);
    expect(results.filter((r) => r.kind === 'ok' && r.changed)).toHaveLength(1);
    const caseIds = new Set(results.map((r) => (r.kind === 'ok' ? r.caseId : null)));
    expect(caseIds.size).toBe(1);
    expect(await state(id)).toMatchObject({ status: 'SUCCESS', feedback: 'useful', cases: [{ retracted: false }] });
  });

  it('50 concurrent mixed posts leave one consistent outcome', async () => {
    const id = await session(tenant, 'SUCCESS');
    const values = Array.from({ length: 50 }, (_, i) => (i % 3 === 0 ? 'not_useful' : 'useful') as 'useful' | 'not_useful');
    const results = await Promise.all(values.map((v) => repo.applyFeedback(tenant, id, v, `c${v}`)));
    expect(results.every((r) => r.kind === 'ok')).toBe(true);
    const final = await state(id);
    expect(final.cases.length).toBeLessThanOrEqual(1);
    expect(final.fb).toHaveLength(1);
    expect(final.fb[0].feedback).toBe(final.feedback);
    if (final.feedback === 'useful') {
      expect(final.status).toBe('SUCCESS');
      expect(final.cases).toEqual([{ retracted: false, source_type: 'AUTO' }]);
    } else {
      expect(final.status).toBe('BAD_CASE');
      expect(final.cases.every((c) => c.retracted)).toBe(true);
    }
  });

  it('lists bad cases and cases newest first with a cursor that keeps microsecond order', async () => {
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await session(tenant, 'SUCCESS'));
    for (const id of ids) await repo.applyFeedback(tenant, id, 'not_useful', `bad ${id}`);
    const seen: string[] = [];
    let after: { createdAt: string; id: string } | undefined;
    for (;;) {
      const page = await badCases.listBadCases(tenant, 2, 'v1', after);
      if (!page.length) break;
      seen.push(...page.map((r) => r.sessionId));
      const last = page[page.length - 1];
      after = { createdAt: last.cursorTs, id: last.feedbackId };
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(expect.arrayContaining(ids));
    expect(seen.slice(0, 5)).toEqual([...ids].reverse());
    const otherTenant = await badCases.listBadCases(other, 50, 'v1');
    expect(otherTenant).toEqual([]);
  });

  it('failure attribution: the SQL facts of a bad case decide its layer (trace, lookups, coverage, label), per tenant and window', async () => {
    const mk = async (
      tenantId: TenantId,
      o: { trace?: unknown; refs?: unknown; searched?: boolean; intent?: string | null; status?: string },
    ): Promise<string> => {
      const conv = await db.pool.query<{ id: string }>(`INSERT INTO conversation (tenant_id) VALUES ($1) RETURNING id`, [tenantId]);
      const s = await db.pool.query<{ id: string }>(
        `INSERT INTO diagnosis_session (tenant_id, conversation_id, query, answer, status, outcome, route_trace, source_references, knowledge_searched, intent)
         VALUES ($1, $2, 'q', 'a', $3, $3, $4::jsonb, $5::jsonb, $6, $7) RETURNING id`,
        [
          tenantId,
          conv.rows[0].id,
          o.status ?? 'SUCCESS',
          JSON.stringify(o.trace ?? null),
          JSON.stringify(o.refs ?? []),
          o.searched ?? false,
          o.intent ?? null,
        ],
      );
      return s.rows[0].id;
    };
    const lookup = (tenantId: TenantId, sessionId: string, status: string, level: string | null, hint: string | null) =>
      db.pool.query(
        `INSERT INTO tool_invocation (tenant_id, session_id, tool_name, status, relevance_level, retrieval_details) VALUES ($1, $2, 'lookup_knowledge', $3, $4, $5::jsonb)`,
        [tenantId, sessionId, status, level, JSON.stringify({ completeness_hint: hint })],
      );
    const decide = (tenantId: TenantId, sessionId: string, verdict: string, reason: string) =>
      db.pool.query(
        `INSERT INTO coverage_decision (session_id, evaluator_version, tenant_id, channel, verdict, reason_code, reference_count, top_score, gap_key, session_created_at)
         VALUES ($2, 'v1', $1, 'web', $3, $4, 0, 0, 'k', now())`,
        [tenantId, sessionId, verdict, reason],
      );
    const knowledge = { finalIntent: 'faq', decisionReason: 'rule_high_confidence', finalConfidence: 0.9, needClarify: false, chat: { branch: 'knowledge' } };
    const f = await db.pool.query<{ t: string }>(`SELECT now()::text AS t`);
    const before = f.rows[0].t;
    const cases: Record<string, string> = {};
    // routing: labelled with another intent
    cases.labelled_other_intent = await mk(tenant, { trace: knowledge, intent: 'faq', refs: [{ score: 0.9 }], searched: true });
    await db.pool.query(`INSERT INTO bad_case_label (tenant_id, session_id, intent) VALUES ($1, $2, 'billing')`, [tenant, cases.labelled_other_intent]);
    // routing: clarify; low confidence (malformed needClarify elsewhere reads as false)
    cases.clarify = await mk(tenant, { trace: { decisionReason: 'fusion_fallback', needClarify: true, finalConfidence: 0.4, chat: { branch: 'clarify' } } });
    cases.low_routing_confidence = await mk(tenant, {
      trace: { ...knowledge, finalConfidence: 0.3, needClarify: 'yes' },
      refs: [{ score: 0.8 }],
      searched: true,
    });
    await lookup(tenant, cases.low_routing_confidence, 'SUCCESS', 'PRECISE', null);
    // no_match whose lookup was PRECISE → routing
    cases.no_match_answerable = await mk(tenant, {
      trace: { decisionReason: 'no_match', finalConfidence: 0.1, chat: { branch: 'knowledge' } },
      searched: true,
      refs: [{ score: 1 }],
    });
    await lookup(tenant, cases.no_match_answerable, 'SUCCESS', 'PRECISE', null);
    // retrieval: failed lookup; partial grade
    cases.lookup_failed = await mk(tenant, { trace: knowledge, searched: true });
    await lookup(tenant, cases.lookup_failed, 'FAILED', null, null);
    cases.low_grade = await mk(tenant, { trace: knowledge, searched: true });
    await lookup(tenant, cases.low_grade, 'SUCCESS', 'REFERENCE', 'PARTIAL');
    await lookup(tenant, cases.low_grade, 'SUCCESS', 'REFERENCE', 'INSUFFICIENT');
    await decide(tenant, cases.low_grade, 'uncovered', 'uncovered_no_references');
    // knowledge gap: all INSUFFICIENT; searched without lookup rows and no references (coverage says so)
    cases.nothing_relevant = await mk(tenant, {
      trace: { ...knowledge, chat: { branch: 'knowledge', confidence: { source: 'not_found', score: 0 } } },
      searched: true,
    });
    await lookup(tenant, cases.nothing_relevant, 'SUCCESS', 'REFERENCE', 'INSUFFICIENT');
    cases.no_references = await mk(tenant, { trace: 'not an object', searched: true });
    await decide(tenant, cases.no_references, 'uncovered', 'uncovered_no_references');
    // answer generation: explicit no answer despite PRECISE; case answer; sufficient references
    cases.said_no_answer = await mk(tenant, { trace: knowledge, searched: true });
    await lookup(tenant, cases.said_no_answer, 'SUCCESS', 'HIGHLY_RELEVANT', null);
    await decide(tenant, cases.said_no_answer, 'uncovered', 'uncovered_explicit_no_answer');
    cases.case_answer_not_useful = await mk(tenant, { trace: { ...knowledge, chat: { branch: 'case_library' } } });
    cases.answer_not_useful = await mk(tenant, { trace: knowledge, searched: true, refs: [{ score: 0.9 }] });
    await lookup(tenant, cases.answer_not_useful, 'SUCCESS', 'PRECISE', null);
    await decide(tenant, cases.answer_not_useful, 'covered', 'covered_has_references');
    const otherId = await mk(other, { trace: knowledge });
    // Another tenant's lookup and label on the same ids must not leak (they cannot: keys include tenant_id).
    await repo.applyFeedback(other, otherId, 'not_useful', undefined);
    for (const id of Object.values(cases)) expect(await repo.applyFeedback(tenant, id, 'not_useful', undefined)).toMatchObject({ kind: 'ok' });

    const listed = new Map<string, string>();
    let after: { createdAt: string; id: string } | undefined;
    for (;;) {
      const page = await badCases.listBadCases(tenant, 7, 'v1', after);
      if (!page.length) break;
      for (const r of page) listed.set(r.sessionId, attributeFailure(factsFromRow(r)).reason);
      after = { createdAt: page[page.length - 1].cursorTs, id: page[page.length - 1].feedbackId };
    }
    for (const [reason, id] of Object.entries(cases)) expect({ reason, got: listed.get(id) }).toEqual({ reason, got: reason });

    // Grouped facts of the window: the same rules over the groups give the same counts as the list.
    const groups = await badCases.badCaseFacts(tenant, 'v1', before, null);
    const byReason: Record<string, number> = {};
    for (const g of groups) {
      const r = attributeFailure(factsFromRow(g)).reason;
      byReason[r] = (byReason[r] ?? 0) + g.count;
    }
    expect(byReason).toEqual(Object.fromEntries(Object.keys(cases).map((r) => [r, 1])));
    // Window: nothing marked before `before`-1h..`before`; other tenant sees only its own one.
    // Window [null, before): exactly the bad cases the earlier tests marked, none of these.
    const earlier = await db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM session_feedback WHERE tenant_id = $1 AND feedback = 'not_useful' AND updated_at < $2`,
      [tenant, before],
    );
    expect(earlier.rows[0].n).toBeGreaterThan(0);
    expect((await badCases.badCaseFacts(tenant, 'v1', null, before)).reduce((n, g) => n + g.count, 0)).toBe(earlier.rows[0].n);
    const otherGroups = await badCases.badCaseFacts(other, 'v1', before, null);
    expect(otherGroups.reduce((n, g) => n + g.count, 0)).toBe(1);
  });
});
