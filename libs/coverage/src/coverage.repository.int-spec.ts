import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { asTenantId, type TenantId } from '@arbiter/common';
import { detectSchemaDrift } from '@arbiter/database';
import { ConversationEntity, DiagnosisSessionEntity, ToolInvocationEntity, addAttribution, dominantLayer, emptyLayerCounts, factsFromRow } from '@arbiter/sessions';
import { ApiKeyEntity, TenantEntity } from '@arbiter/tenancy';
import { newMediumTest, type MediumTest, type TestDatabase } from '@arbiter/testing';
import { runCoverageBackfill, type BackfillState, type BackfillStorage } from './coverage-backfill.js';
import { CoverageBackfillRepository } from './coverage-backfill.repository.js';
import { CoverageDecisionEntity } from './entities/coverage-decision.entity.js';
import { CoverageRepository, type FailureFactsGroup } from './coverage.repository.js';
import { CoverageEvaluatorV1 } from './evaluator/coverage-evaluator.v1.js';
import { resolveDateRange } from './report-range.js';

const ENTITIES = [TenantEntity, ApiKeyEntity, ConversationEntity, DiagnosisSessionEntity, ToolInvocationEntity, CoverageDecisionEntity];

interface SeedSession {
  createdAt: string;
  status?: string;
  channel?: string;
  query?: string;
  answer?: string | null;
  references?: unknown;
  media?: unknown;
  knowledgeSearched?: boolean;
}

async function newTenant(db: TestDatabase, name: string, timeZone = 'UTC'): Promise<TenantId> {
  const { rows } = await db.pool.query<{ id: string }>('INSERT INTO tenant (name, time_zone) VALUES ($1, $2) RETURNING id', [name, timeZone]);
  return asTenantId(rows[0]!.id);
}

/** Inserts sessions in one statement; returns their ids in input order. */
async function seed(db: TestDatabase, tenantId: TenantId, sessions: SeedSession[]): Promise<string[]> {
  const { rows: conv } = await db.pool.query<{ id: string }>('INSERT INTO conversation (tenant_id) VALUES ($1) RETURNING id', [tenantId]);
  const { rows } = await db.pool.query<{ id: string }>(
    `INSERT INTO diagnosis_session (tenant_id, conversation_id, channel, query, answer, status, source_references, media, knowledge_searched, created_at)
     SELECT $1, $2, u.channel, u.query, u.answer, u.status, u.refs, u.media, u.ks, u.created_at
     FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::jsonb[], $8::jsonb[], $9::bool[], $10::timestamptz[]) WITH ORDINALITY
       AS u(channel, query, answer, status, refs, media, ks, created_at, ord)
     ORDER BY u.ord
     RETURNING id`,
    [
      tenantId,
      conv[0]!.id,
      sessions.map((s) => s.channel ?? 'web'),
      sessions.map((s) => s.query ?? '怎么重置机械臂'),
      sessions.map((s) => (s.answer === undefined ? '按住复位键' : s.answer)),
      sessions.map((s) => s.status ?? 'SUCCESS'),
      sessions.map((s) => JSON.stringify(s.references ?? [])),
      sessions.map((s) => JSON.stringify(s.media ?? [])),
      sessions.map((s) => s.knowledgeSearched ?? false),
      sessions.map((s) => s.createdAt),
    ],
  );
  return rows.map((r) => r.id);
}

describe(`coverage repository (${process.env.TEST_DB ?? 'pglite'})`, () => {
  let medium: MediumTest;
  let db: TestDatabase;
  let ds: DataSource;
  let repo: CoverageRepository;
  let backfill: CoverageBackfillRepository;
  const v1 = new CoverageEvaluatorV1();

  beforeAll(async () => {
    medium = await newMediumTest({ entities: ENTITIES, max: 3 });
    db = medium.db;
    ds = medium.dataSource;
    repo = new CoverageRepository(medium.database);
    backfill = new CoverageBackfillRepository(medium.database, repo);
  }, 180_000);
  afterAll(() => medium?.close());

  const backfillAll = (tenantId: TenantId, batchSize = 100) =>
    runCoverageBackfill(backfill, v1, tenantId, { evaluatorVersion: 'v1', fromTs: null, toTs: null, batchSize }, null);

  it('matches the migration exactly (no schema drift)', async () => {
    expect(await detectSchemaDrift(ds)).toEqual([]);
  });

  describe('report and gaps on a seeded dataset with known counts', () => {
    let tenant: TenantId;
    let other: TenantId;

    beforeAll(async () => {
      tenant = await newTenant(db, 'report-tenant', 'Asia/Shanghai');
      other = await newTenant(db, 'report-other');
      await seed(db, tenant, [
        // 2026-03-01 (Shanghai): 2 covered (refs), 1 uncovered (no refs, searched)
        { createdAt: '2026-03-01T01:00:00+08:00', references: [{ score: 0.9 }], channel: 'web', query: '如何重置机械臂？' },
        { createdAt: '2026-03-01T09:00:00+08:00', references: [{ score: 0.4 }], channel: 'api', query: 'Reset arm' },
        { createdAt: '2026-03-01T23:30:00+08:00', knowledgeSearched: true, channel: 'web', query: '如何 重置 机械臂' }, // 15:30Z: still 03-01 in Shanghai
        // 2026-03-02: explicit no-answer x2 (same gap), a greeting (covered), a FAILED (never decided)
        { createdAt: '2026-03-02T00:10:00+08:00', answer: '抱歉，知识库中没有相关内容', references: [{ score: 0.2 }], channel: 'web', query: '如何重置机械臂!' }, // 03-01 16:10Z
        { createdAt: '2026-03-02T10:00:00+08:00', answer: '未检索到，建议联系技术支持', channel: 'api', query: 'X-200 报错 E15' },
        { createdAt: '2026-03-02T11:00:00+08:00', answer: '你好', channel: 'web', query: '你好' },
        { createdAt: '2026-03-02T12:00:00+08:00', status: 'FAILED', answer: null, channel: 'web', query: 'X-200 报错 E15' },
        // 2026-03-03: image recognition (covered), BAD_CASE image searched without refs (uncovered)
        { createdAt: '2026-03-03T08:00:00+08:00', media: [{ type: 'image' }], channel: 'web', query: '这是什么零件' },
        { createdAt: '2026-03-03T09:00:00+08:00', media: [{ type: 'IMAGE' }], status: 'BAD_CASE', knowledgeSearched: true, channel: 'web', query: 'x200报错E15' },
        // outside the window
        { createdAt: '2026-02-28T23:59:00+08:00', knowledgeSearched: true, channel: 'web', query: '窗口外' },
        { createdAt: '2026-03-04T00:00:00+08:00', knowledgeSearched: true, channel: 'web', query: '窗口外' },
      ]);
      await seed(db, other, [{ createdAt: '2026-03-02T10:00:00+08:00', knowledgeSearched: true, query: '别人的问题' }]);
      expect((await backfillAll(tenant)).decided).toBe(10);
      expect((await backfillAll(other)).decided).toBe(1);
    }, 60_000);

    const range = () => resolveDateRange({ from: '2026-03-01', to: '2026-03-03', timeZone: 'Asia/Shanghai' });

    it('counts by day in the time zone, by channel and by reason', async () => {
      const r = await repo.report(tenant, 'v1', range(), null);
      expect(r.totals).toEqual({ total: 8, covered: 4 });
      expect(new Map(r.byDay.map((d) => [d.date, [d.total, d.covered]]))).toEqual(
        new Map([
          ['2026-03-01', [3, 2]],
          ['2026-03-02', [3, 1]],
          ['2026-03-03', [2, 1]],
        ]),
      );
      expect(new Map(r.byChannel.map((c) => [c.channel, [c.total, c.covered]]))).toEqual(
        new Map([
          ['web', [6, 3]],
          ['api', [2, 1]],
        ]),
      );
      expect(Object.fromEntries(r.byReason.map((x) => [x.reasonCode, x.total]))).toEqual({
        covered_has_references: 2,
        uncovered_no_references: 2,
        uncovered_explicit_no_answer: 2,
        covered_non_knowledge_response: 1,
        covered_visual_recognition: 1,
      });
    });

    it('shifts day boundaries with the time zone', async () => {
      const r = await repo.report(tenant, 'v1', resolveDateRange({ from: '2026-03-01', to: '2026-03-01', timeZone: 'UTC' }), null);
      // UTC 03-01 = Shanghai 03-01 08:00 .. 03-02 07:59: the 09:00, 23:30 and 03-02 00:10 sessions.
      expect(r.totals.total).toBe(3);
    });

    it('filters by channel and by evaluator version', async () => {
      expect((await repo.report(tenant, 'v1', range(), 'api')).totals).toEqual({ total: 2, covered: 1 });
      expect((await repo.report(tenant, 'v9', range(), null)).totals).toEqual({ total: 0, covered: 0 });
    });

    it('groups uncovered queries by normalized text, most frequent first, tenant-scoped', async () => {
      const gaps = await repo.gaps(tenant, 'v1', range(), null, 10);
      // Equal counts: the most recently seen first.
      expect(gaps.map((g) => [g.gapKey, g.count])).toEqual([
        ['x200报错e15', 2],
        ['如何重置机械臂', 2],
      ]);
      expect(gaps[0]!.sampleQuery).toBe('x200报错E15'); // the most recent wording
      const reset = gaps[1]!;
      expect(reset.reasonCodes).toEqual(['uncovered_explicit_no_answer', 'uncovered_no_references']);
      expect(reset.sampleSessionIds).toHaveLength(2);
      expect(reset.sampleQuery).toBe('如何重置机械臂!');
      expect(new Date(reset.lastSeenAt).toISOString()).toBe('2026-03-01T16:10:00.000Z');
      expect(await repo.gaps(tenant, 'v1', range(), null, 1)).toHaveLength(1);
      expect((await repo.gaps(other, 'v1', range(), null, 10)).map((g) => g.gapKey)).toEqual(['别人的问题']);
    });

    it('failure facts of the uncovered sessions: grouped per combination, per gap, channel- and tenant-scoped; a label moves one to routing', async () => {
      const layersOf = async (groups: Promise<FailureFactsGroup[]>) => {
        const c = emptyLayerCounts();
        for (const g of await groups) addAttribution(c, factsFromRow(g), g.count);
        return c;
      };
      // Searched without references (x2) → knowledge gap; a reply saying it has no answer, not searched (x2) → answer generation.
      const all = await layersOf(repo.uncoveredFacts(tenant, 'v1', range(), null));
      expect(all.byLayer).toEqual({ routing: 0, retrieval: 0, knowledge_gap: 2, answer_generation: 2 });
      expect(all.byReason).toMatchObject({ no_references: 2, said_no_answer: 2 });
      expect((await layersOf(repo.uncoveredFacts(tenant, 'v1', range(), 'api'))).byLayer).toEqual({ routing: 0, retrieval: 0, knowledge_gap: 0, answer_generation: 1 });
      expect((await layersOf(repo.uncoveredFacts(other, 'v1', range(), null))).byLayer).toEqual({ routing: 0, retrieval: 0, knowledge_gap: 1, answer_generation: 0 });

      const { rows } = await db.pool.query<{ id: string }>(`SELECT id FROM diagnosis_session WHERE tenant_id = $1 AND query = 'x200报错E15'`, [tenant]);
      await db.pool.query(`INSERT INTO bad_case_label (tenant_id, session_id, intent) VALUES ($1, $2, 'alarm_codes')`, [tenant, rows[0]!.id]);
      // The same label under another tenant's id changes nothing there.
      await db.pool.query(`INSERT INTO bad_case_label (tenant_id, session_id, intent) VALUES ($1, $2, 'alarm_codes')`, [other, rows[0]!.id]);
      const perGap = new Map<string, ReturnType<typeof emptyLayerCounts>>();
      for (const g of await repo.gapFacts(tenant, 'v1', range(), null, ['x200报错e15', '如何重置机械臂', 'unknown'])) {
        const c = perGap.get(g.gapKey) ?? emptyLayerCounts();
        addAttribution(c, factsFromRow(g), g.count);
        perGap.set(g.gapKey, c);
      }
      expect([...perGap.keys()].sort()).toEqual(['x200报错e15', '如何重置机械臂']);
      expect(perGap.get('x200报错e15')!.byLayer).toEqual({ routing: 1, retrieval: 0, knowledge_gap: 0, answer_generation: 1 });
      expect(dominantLayer(perGap.get('x200报错e15')!.byLayer)).toBe('routing');
      // Tie between knowledge gap and answer generation: the upstream one.
      expect(dominantLayer(perGap.get('如何重置机械臂')!.byLayer)).toBe('knowledge_gap');
      expect(await repo.gapFacts(tenant, 'v1', range(), null, [])).toEqual([]);
      expect((await layersOf(repo.uncoveredFacts(other, 'v1', range(), null))).byLayer.routing).toBe(0);
    });
  });

  describe('backfill', () => {
    it('is idempotent and reports malformed references without stopping', async () => {
      const tenant = await newTenant(db, 'malformed');
      const ids = await seed(db, tenant, [
        { createdAt: '2026-01-01T00:00:00Z', references: [{ score: 0.5 }] },
        { createdAt: '2026-01-01T00:00:01Z', references: [{ score: 'high' }] },
        { createdAt: '2026-01-01T00:00:02Z', references: { score: 1 } },
        { createdAt: '2026-01-01T00:00:03Z', references: [{ title: 'no score' }] },
        { createdAt: '2026-01-01T00:00:04Z', knowledgeSearched: true },
      ]);
      const first = await backfillAll(tenant, 2);
      expect(first).toMatchObject({ done: true, decided: 2, rejected: 3 });
      expect(first.rejectedSamples.map((r) => r.sessionId)).toEqual([ids[1], ids[2], ids[3]]);
      expect(first.rejectedSamples.every((r) => r.code === 'MALFORMED_REFERENCE')).toBe(true);
      const second = await backfillAll(tenant, 2);
      expect(second).toMatchObject({ done: true, decided: 0, rejected: 3 });
    });

    it('keyset pagination neither skips nor repeats sessions sharing a timestamp (microseconds)', async () => {
      const tenant = await newTenant(db, 'same-time');
      const sessions: SeedSession[] = Array.from({ length: 250 }, (_, i) => ({ createdAt: `2026-01-01T00:00:00.${String(100000 + (i % 3)).padStart(6, '0')}Z`, references: [{ score: i / 250 }] }));
      await seed(db, tenant, sessions);
      const state = await backfillAll(tenant, 7);
      expect(state).toMatchObject({ done: true, decided: 250, scanned: 250, rejected: 0 });
      const { rows } = await db.pool.query('SELECT count(*)::int AS n, count(DISTINCT session_id)::int AS d FROM coverage_decision WHERE tenant_id = $1', [tenant]);
      expect(rows[0]).toEqual({ n: 250, d: 250 });
    });

    it.each(['before', 'after'] as const)('crash test: killed mid-run (%s a batch commits), restarted: nothing skipped or doubled', async (when) => {
      const tenant = await newTenant(db, `crash-${when}`);
      const n = 1000;
      await seed(
        db,
        tenant,
        Array.from({ length: n }, (_, i) => ({
          createdAt: new Date(Date.UTC(2026, 0, 1) + Math.floor(i / 3) * 1000).toISOString(),
          status: i % 10 === 9 ? 'FAILED' : 'SUCCESS',
          references: i % 2 ? [{ score: 0.5 }] : [],
          knowledgeSearched: i % 4 === 0,
        })),
      );
      const expected = n - n / 10;
      let saved: BackfillState | null = null;
      let batch = 0;
      const crashing: BackfillStorage = {
        nextUndecided: (...a) => backfill.nextUndecided(...a),
        insertDecisions: async (t, rows) => {
          batch++;
          if (batch === 6 && when === 'before') throw new Error('killed');
          const inserted = await repo.insertDecisions(t, rows);
          if (batch === 6 && when === 'after') throw new Error('killed');
          return inserted;
        },
      };
      const params = { evaluatorVersion: 'v1', fromTs: null, toTs: null, batchSize: 64 };
      await expect(runCoverageBackfill(crashing, v1, tenant, params, null, { onBatch: async (s) => void (saved = structuredClone(s)) })).rejects.toThrow('killed');
      const mid = await db.pool.query('SELECT count(*)::int AS n FROM coverage_decision WHERE tenant_id = $1', [tenant]);
      expect(mid.rows[0].n).toBe(when === 'before' ? 5 * 64 : 6 * 64);
      const resumed = await runCoverageBackfill(backfill, v1, tenant, params, saved);
      expect(resumed.done).toBe(true);
      expect(resumed.decided).toBe(when === 'before' ? expected : expected - 64);
      const { rows } = await db.pool.query(
        `SELECT count(*)::int AS decided,
                (SELECT count(*)::int FROM diagnosis_session s WHERE s.tenant_id = $1 AND s.status IN ('SUCCESS','BAD_CASE')
                   AND NOT EXISTS (SELECT 1 FROM coverage_decision d WHERE d.tenant_id = s.tenant_id AND d.session_id = s.id)) AS missing
         FROM coverage_decision WHERE tenant_id = $1`,
        [tenant],
      );
      expect(rows[0]).toEqual({ decided: expected, missing: 0 });
    });
  });
});
