import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { asTenantId, decodeCursor, pageRequest, type TenantId } from '@arbiter/common';
import { newMediumTest, type MediumTest, type TestDatabase } from '@arbiter/testing';
import { DecisionLogRepository, DEFAULT_DECISION_RETENTION_DAYS, type DecisionLogRow } from './decision-log.repository.js';
import { INTENT_LEARNING_ENTITIES } from './entities/index.js';
import { LabelledSetRepository } from './labelled-set.repository.js';

const DAY = 24 * 3600 * 1000;

describe('learning repositories (decision log, labelled sets) on a real database', () => {
  let medium: MediumTest;
  let db: TestDatabase;
  let decisions: DecisionLogRepository;
  let sets: LabelledSetRepository;
  const A = asTenantId(randomUUID());
  const B = asTenantId(randomUUID());

  let seq = 0;
  const row = (tenantId: TenantId, over: Partial<DecisionLogRow> = {}): DecisionLogRow => ({
    tenantId,
    id: randomUUID(),
    createdAt: new Date(Date.UTC(2026, 10, 30, 10, 0, 0) + seq++),
    source: 'route',
    sessionId: null,
    message: `message ${seq}`,
    configVersion: '3',
    rulesVersion: '7',
    intent: 'reset',
    reason: 'rule_high_confidence',
    needClarify: false,
    confidence: 0.9,
    candidates: [{ intent: 'reset', confidence: 0.9 }],
    trace: { fusion: { decisionReason: 'rule_high_confidence' } },
    latencyMs: 1.25,
    ...over,
  });
  const all = async (tenantId: TenantId, filter = {}): Promise<string[]> => {
    const ids: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await decisions.list(tenantId, filter, pageRequest({ limit: 2, ...(cursor ? { cursor } : {}) }));
      ids.push(...page.items.map((d) => d.id));
      if (page.nextCursor === null) return ids;
      cursor = page.nextCursor;
    }
  };

  beforeAll(async () => {
    medium = await newMediumTest({ entities: INTENT_LEARNING_ENTITIES, max: 10 });
    db = medium.db;
    const database = medium.database;
    decisions = new DecisionLogRepository(database);
    sets = new LabelledSetRepository(database);
  });
  afterAll(async () => {
    await medium?.close();
  });

  describe('decision log', () => {
    const a: DecisionLogRow[] = [];
    beforeAll(async () => {
      a.push(
        row(A),
        row(A, { source: 'chat', sessionId: randomUUID(), intent: null, reason: 'no_match', confidence: 0, candidates: [] }),
        row(A, { intent: 'firmware', reason: 'fusion_fallback', needClarify: true }),
        row(A, { intent: 'firmware', reason: 'semantic_override' }),
        row(A),
      );
      // Two rows in one millisecond: the keyset's id tie-break keeps both.
      a.push(row(A, { createdAt: a[4]!.createdAt }));
      // B's decisions are older than A's: A's purge must still leave them alone.
      const older = new Date(a[0]!.createdAt.getTime() - 1000);
      await decisions.insertBatch([...a, row(B, { createdAt: older }), row(B, { intent: 'firmware', createdAt: older })]);
    });

    it('one batch writes rows of several tenants with every column; a retried batch writes nothing twice', async () => {
      await decisions.insertBatch(a.slice(0, 3));
      const { rows } = await db.pool.query<{ tenant_id: string; n: number }>(
        'SELECT tenant_id, count(*)::int AS n FROM decision_log WHERE tenant_id = ANY($1::uuid[]) GROUP BY tenant_id ORDER BY n DESC',
        [[A, B]],
      );
      expect(rows).toEqual([
        { tenant_id: A, n: 6 },
        { tenant_id: B, n: 2 },
      ]);
      const chat = await decisions.get(A, a[1]!.id);
      expect(chat).toEqual({
        id: a[1]!.id,
        createdAt: a[1]!.createdAt.toISOString(),
        source: 'chat',
        sessionId: a[1]!.sessionId,
        message: a[1]!.message,
        configVersion: '3',
        rulesVersion: '7',
        intent: null,
        reason: 'no_match',
        needClarify: false,
        confidence: 0,
        candidates: [],
        trace: { fusion: { decisionReason: 'rule_high_confidence' } },
        latencyMs: 1.25,
        label: null,
      });
    });

    it('lists newest first over every page (two rows in one millisecond included), only the tenant’s own', async () => {
      const newestFirst = [...a].sort((x, y) => y.createdAt.getTime() - x.createdAt.getTime() || (y.id < x.id ? -1 : 1)).map((r) => r.id);
      expect(await all(A)).toEqual(newestFirst);
      expect(await all(B)).toHaveLength(2);
      expect(await decisions.get(B, a[0]!.id)).toBeNull();
    });

    it.each([
      ['intent', { intent: 'firmware' }, [3, 2]],
      ['reason', { reason: 'no_match' }, [1]],
      ['needClarify true', { needClarify: true }, [2]],
      ['needClarify false', { needClarify: false }, [5, 4, 3, 1, 0]],
      ['source', { source: 'chat' as const }, [1]],
      ['intent and clarify', { intent: 'firmware', needClarify: false }, [3]],
    ])('filter %s', async (_name, filter, indexes) => {
      const expected = indexes.map((i) => a[i]!.id);
      // index 4 and 5 share a millisecond: compare as sets where they both occur
      expect((await all(A, filter)).sort()).toEqual(expected.sort());
    });

    it('filters a time range, bounds included', async () => {
      const ids = await all(A, { from: a[1]!.createdAt, to: a[3]!.createdAt });
      expect(ids).toEqual([a[3]!.id, a[2]!.id, a[1]!.id]);
    });

    it('the cursor carries the exact timestamp and the id', async () => {
      const page = await decisions.list(A, {}, pageRequest({ limit: 1 }));
      expect(decodeCursor(page.nextCursor!)).toEqual({ createdAt: expect.stringMatching(/^2026-11-30T10:00:00\.\d{6}Z$/), id: page.items[0]!.id });
    });

    it('purges older than the retention: the default, then the tenant’s setting, in batches, per tenant', async () => {
      const t0 = a[0]!.createdAt.getTime(); // a[i] was decided at t0 + i ms (a[5] with a[4])
      const now = new Date(t0 + DEFAULT_DECISION_RETENTION_DAYS * DAY + 2);
      // default 30 days: a[0] and a[1] are older than now - 30 d
      expect(await decisions.retentionDays(A)).toBe(DEFAULT_DECISION_RETENTION_DAYS);
      expect(await decisions.purgeExpired(A, 1, now)).toBe(1);
      expect(await decisions.purgeExpired(A, 100, now)).toBe(1);
      expect(await decisions.purgeExpired(A, 100, now)).toBe(0);
      expect((await all(A)).sort()).toEqual([a[2]!.id, a[3]!.id, a[4]!.id, a[5]!.id].sort());
      expect(await all(B)).toHaveLength(2);
      // 40 days: ten days later a[2] and a[3] are older than now - 40 d (with 30 days all of A's would be)
      await decisions.setRetentionDays(A, 40);
      expect(await decisions.retentionDays(A)).toBe(40);
      expect(await decisions.purgeExpired(A, 100, new Date(t0 + 40 * DAY + 4))).toBe(2);
      expect((await all(A)).sort()).toEqual([a[4]!.id, a[5]!.id].sort());
      expect(await decisions.purgeExpired(B, 100, now)).toBe(2);
      await decisions.setRetentionDays(A, DEFAULT_DECISION_RETENTION_DAYS);
    });

    it('the retention check constraint refuses 0 and 3651 days', async () => {
      await expect(decisions.setRetentionDays(A, 0)).rejects.toThrow(/chk_decision_log_settings_retention/);
      await expect(decisions.setRetentionDays(A, 3651)).rejects.toThrow(/chk_decision_log_settings_retention/);
    });
  });

  describe('labelled sets', () => {
    const examples = [
      { line: 1, text: 'reset the arm', intent: 'reset' },
      { line: 3, text: 'weather today', intent: null },
      { line: 4, text: 'update firmware', intent: 'firmware' },
    ];

    it('each upload of a name is its next version; counts; examples paged; other tenants see none of it', async () => {
      const v1 = await sets.createVersion(A, 'train', examples);
      const v2 = await sets.createVersion(A, 'train', examples.slice(0, 2));
      const other = await sets.createVersion(B, 'train', examples);
      expect([v1.version, v2.version, other.version]).toEqual([1, 2, 1]);
      expect(v1).toMatchObject({ name: 'train', kind: 'upload', exampleCount: 3, outOfScopeCount: 1 });
      expect(v2).toMatchObject({ exampleCount: 2, outOfScopeCount: 1 });
      const listed = await sets.list(A, { name: 'train' }, pageRequest({}));
      expect(listed.items.map((s) => s.version)).toEqual([2, 1]);
      const seen: { line: number | null; text: string; intent: string | null }[] = [];
      let cursor: string | undefined;
      do {
        const page = await sets.examples(A, v1.id, pageRequest({ limit: 2, ...(cursor ? { cursor } : {}) }));
        seen.push(...page.items.map(({ line, text, intent }) => ({ line, text, intent })));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      expect(seen.sort((x, y) => x.line! - y.line!)).toEqual(examples);
      expect(await sets.get(B, v1.id)).toBeNull();
      expect((await sets.examples(B, v1.id, pageRequest({}))).items).toEqual([]);
      expect(await sets.delete(B, v1.id)).toBe(false);
      expect(await sets.get(A, v1.id)).not.toBeNull();
    });

    it('concurrent uploads of one name get distinct versions', async () => {
      const made = await Promise.all(Array.from({ length: 4 }, () => sets.createVersion(A, 'race', examples)));
      expect(made.map((s) => s.version).sort()).toEqual([1, 2, 3, 4]);
    });

    it('deleting a version deletes its examples only', async () => {
      const v = await sets.createVersion(A, 'gone', examples);
      const keep = await sets.createVersion(A, 'gone', examples);
      expect(await sets.delete(A, v.id)).toBe(true);
      expect(await sets.get(A, v.id)).toBeNull();
      const { rows } = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM labelled_example WHERE tenant_id = $1 AND set_id = $2', [A, v.id]);
      expect(rows[0]!.n).toBe(0);
      expect((await sets.get(A, keep.id))!.exampleCount).toBe(3);
      expect(await sets.delete(A, v.id)).toBe(false);
    });

    it('labels on logged decisions form the review set; relabelling replaces; another tenant’s decision is not found and nothing is written', async () => {
      const d1 = row(A, { message: 'arm stuck' });
      const d2 = row(A, { message: 'is it raining' });
      const foreign = row(B, { message: 'B only' });
      await decisions.insertBatch([d1, d2, foreign]);
      const first = await sets.labelDecision(A, d1.id, 'reset');
      expect(first).toMatchObject({ text: 'arm stuck', intent: 'reset', decisionId: d1.id, line: null });
      await sets.labelDecision(A, d2.id, null);
      const relabelled = await sets.labelDecision(A, d1.id, 'firmware');
      expect(relabelled).toMatchObject({ id: first!.id, intent: 'firmware' });
      const review = (await sets.list(A, { name: 'review' }, pageRequest({}))).items;
      expect(review).toEqual([expect.objectContaining({ name: 'review', version: 1, kind: 'review', exampleCount: 2, outOfScopeCount: 1 })]);
      expect((await decisions.get(A, d1.id))!.label).toEqual({ intent: 'firmware', labelledAt: expect.any(String) });
      expect((await decisions.get(A, d2.id))!.label).toEqual({ intent: null, labelledAt: expect.any(String) });

      const before = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM labelled_example');
      expect(await sets.labelDecision(A, foreign.id, 'reset')).toBeNull();
      expect(await sets.labelDecision(A, randomUUID(), 'reset')).toBeNull();
      const after = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM labelled_example');
      expect(after.rows[0]!.n).toBe(before.rows[0]!.n);
      expect((await sets.list(B, { name: 'review' }, pageRequest({}))).items).toEqual([]);
    });
  });
});
