import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TenantId } from '@arbiter/common';
import { newMediumTest, type MediumTest, type TestDatabase } from '@arbiter/testing';
import { runSetBasedCoverageBackfill, type SetBasedBackfillStorage } from './coverage-backfill.js';
import { CoverageBackfillRepository, type CandidateSession } from './coverage-backfill.repository.js';
import { decideStoredSession } from './coverage-decider.js';
import { CoverageRepository } from './coverage.repository.js';
import { CoverageEvaluatorV1 } from './evaluator/coverage-evaluator.v1.js';

/** Answers, references, media and queries chosen to hit every rule and every place SQL and JavaScript could differ. */
const ANSWERS = ['请按住复位键三秒。', '抱歉，未找到相关资料。', '未检索到相关内容，建议您联系售后。', '未查询到异常记录，设备运行正常。', '如需更换电机，请联系官方销售。', '   ', null, '知识库中没有 X-200'];
const REFERENCES = [
  '[]',
  '[{"score": 0.42}, {"score": 0.91}, {"score": 0.1}]',
  '[{"score": -0.5}, {"score": 0}]',
  '[{"score": 1e-7}]',
  'null',
  '[{"score": "high"}]',
  '{"score": 0.5}',
  '[{"score": 1e400}]',
  '["x"]',
  '[{"score": 0.30000000000000004}]',
];
const MEDIA = ['[]', '[{"type": "image"}]', '[{"type": "  IMAGE \\n"}]', '[{"type": "\\u3000Image\\ufeff"}]', '[{"type": "İmage"}]', '[{"type": "image/png"}]', '{"type": "image"}', '[{}, {"type": 42}]', '["image"]'];
const QUERIES = [
  '机械臂怎么复位？',
  'Ｅ１．５ 报警，怎么处理！！',
  'Reset   the ARM, please...',
  '「急停」按钮在哪里？（型号：RX-7）',
  'ÄRGER mit dem Greifer',
  'zero\u200bwidth\ufeff space',
  'emoji 🤖 robot',
  'tab\tand\nnewline — dash… ellipsis',
  '￥100 price ＄5',
  'ｶﾀｶﾅ and ひらがな・中点',
  '',
];

describe('set-based coverage backfill = evaluator v1', () => {
  let medium: MediumTest;
  let db: TestDatabase;
  let a: TenantId;
  let b: TenantId;

  async function seed(tenant: TenantId, n: number): Promise<void> {
    const conv = (await db.pool.query<{ id: string }>(`INSERT INTO conversation (tenant_id) VALUES ($1) RETURNING id`, [tenant])).rows[0]!.id;
    await db.pool.query(
      `INSERT INTO diagnosis_session (tenant_id, conversation_id, channel, query, answer, status, outcome, source_references, media, knowledge_searched, created_at)
       SELECT $1, $2, (ARRAY['web', 'api'])[1 + i % 2], ($3::text[])[1 + i % cardinality($3::text[])], ($4::text[])[1 + (i / 3) % cardinality($4::text[])],
              CASE WHEN i % 13 = 12 THEN 'FAILED' WHEN i % 11 = 10 THEN 'BAD_CASE' ELSE 'SUCCESS' END,
              CASE WHEN i % 13 = 12 THEN 'FAILED' WHEN i % 29 = 28 THEN 'FAILED' ELSE 'SUCCESS' END,
              ($5::text[])[1 + (i / 7) % cardinality($5::text[])]::jsonb, ($6::text[])[1 + (i / 5) % cardinality($6::text[])]::jsonb,
              i % 3 <> 0, timestamptz '2026-03-01' + (i / 2) * interval '1 millisecond'
       FROM generate_series(0, $7::int - 1) AS i`,
      [tenant, conv, QUERIES, ANSWERS, REFERENCES, MEDIA, n],
    );
  }

  beforeAll(async () => {
    medium = await newMediumTest({ max: 4 });
    db = medium.db;
    [a, b] = await medium.tenants('cov-set-a', 'cov-set-b');
    await seed(a, 700);
    await seed(b, 50);
  }, 120_000);
  afterAll(() => medium?.close());

  it('decides exactly what the TypeScript evaluator decides (verdict, reason, counts, top score, gap key), rejects the same sessions, and only for its tenant', async () => {
    const database = medium.database;
    const repository = new CoverageRepository(database);
    const setBased = new CoverageBackfillRepository(database, repository);
    let inSql = 0;
    let leftToTs = 0;
    const storage: SetBasedBackfillStorage = {
      decideV1Page: async (...args) => {
        const page = await setBased.decideV1Page(...args);
        inSql += page.decidedInSql;
        leftToTs += page.rest.length;
        return page;
      },
      insertDecisions: (tenantId, rows) => repository.insertDecisions(tenantId, rows),
    };
    const evaluator = new CoverageEvaluatorV1();
    const state = await runSetBasedCoverageBackfill(storage, evaluator, a, { evaluatorVersion: 'v1', fromTs: null, toTs: null, batchSize: 64 }, null);
    expect(state.done).toBe(true);
    // Both halves exercised: most rows in SQL, the unusual ones (accents, emoji, malformed references) in TypeScript.
    expect(inSql).toBeGreaterThan(200);
    expect(leftToTs).toBeGreaterThan(20);

    // The reference: every succeeded session of the tenant through the TypeScript evaluator.
    const sessions: CandidateSession[] = (
      await db.pool.query(
        `SELECT s.id, s.created_at::text AS "createdAt", s.channel, s.status, s.outcome, s.query, s.answer,
                s.source_references AS "references", s.media, s.knowledge_searched AS "knowledgeSearched"
           FROM diagnosis_session s WHERE s.tenant_id = $1 AND s.status IN ('SUCCESS', 'BAD_CASE') AND s.outcome IS DISTINCT FROM 'FAILED'`,
        [a],
      )
    ).rows;
    const stored = new Map(
      (
        await db.pool.query<{ session_id: string; verdict: string; reason_code: string; reference_count: number; top_score: number; gap_key: string; channel: string; same_time: boolean }>(
          `SELECT d.session_id, d.verdict, d.reason_code, d.reference_count, d.top_score, d.gap_key, d.channel, d.session_created_at = s.created_at AS same_time
             FROM coverage_decision d JOIN diagnosis_session s ON s.tenant_id = d.tenant_id AND s.id = d.session_id WHERE d.tenant_id = $1 AND d.evaluator_version = 'v1'`,
          [a],
        )
      ).rows.map((r) => [r.session_id, r]),
    );
    let rejected = 0;
    for (const session of sessions) {
      const expected = decideStoredSession(evaluator, a, session);
      const got = stored.get(session.id);
      if (!expected.ok) {
        rejected++;
        expect({ id: session.id, stored: got ?? null }).toEqual({ id: session.id, stored: null });
        continue;
      }
      const want = expected.row;
      expect({ id: session.id, query: session.query, decision: got && { ...got, top_score: Number(got.top_score) } }).toEqual({
        id: session.id,
        query: session.query,
        decision: {
          session_id: want.sessionId,
          verdict: want.verdict,
          reason_code: want.reasonCode,
          reference_count: want.referenceCount,
          top_score: want.topScore,
          gap_key: want.gapKey,
          channel: want.channel,
          same_time: true,
        },
      });
    }
    expect(rejected).toBe(state.rejected);
    expect(rejected).toBeGreaterThan(0);
    expect(stored.size).toBe(sessions.length - rejected);
    // Tenant b: nothing decided.
    expect((await db.pool.query(`SELECT count(*)::int AS n FROM coverage_decision WHERE tenant_id = $1`, [b])).rows[0].n).toBe(0);
  });
});
