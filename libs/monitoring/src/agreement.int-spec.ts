import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TenantId } from '@arbiter/common';
import { newMediumTest, type MediumTest, type TestDatabase } from '@arbiter/testing';
import type { AgreementTable } from './agreement.js';
import { MonitoringRepository } from './monitoring.repository.js';

interface Seeded {
  confidence: unknown;
  verdict: 'covered' | 'uncovered' | null;
  feedback: 'useful' | 'not_useful';
  at: number;
}

/**
 * The agreement tables (docs/learning.md "Agreement") on a real database: the SQL's 2×2 counts equal a count
 * made here from the seeded rows, for several windows and thresholds, per tenant; malformed or missing
 * self-evaluations and sessions without a decision of the version are left out of their pair.
 */
describe('MonitoringRepository.agreementTables', () => {
  let medium: MediumTest;
  let db: TestDatabase;
  let repo: MonitoringRepository;
  let a: TenantId;
  let b: TenantId;
  const seeded = new Map<TenantId, Seeded[]>();
  const base = Date.parse('2026-11-02T00:00:00Z');

  async function seed(tenant: TenantId, count: number, salt: number): Promise<void> {
    const conv = await db.pool.query<{ id: string }>(`INSERT INTO conversation (tenant_id) VALUES ($1) RETURNING id`, [tenant]);
    const rows: Seeded[] = [];
    for (let i = 0; i < count; i++) {
      const k = i * 7 + salt;
      const confidence = k % 13 === 0 ? 'x' : k % 11 === 0 ? null : (k * 17) % 101;
      const verdict = k % 9 === 0 ? null : k % 3 === 0 ? 'uncovered' : 'covered';
      const feedback = (i * 3 + salt) % 7 < 3 ? 'not_useful' : 'useful';
      const at = base + i * 3_600_000 + (salt % 60) * 1000;
      rows.push({ confidence, verdict, feedback, at });
      const s = await db.pool.query<{ id: string }>(
        `INSERT INTO diagnosis_session (tenant_id, conversation_id, query, answer, status, feedback, self_evaluation)
         VALUES ($1, $2, 'q', 'a', $3, $4, $5::jsonb) RETURNING id`,
        [
          tenant,
          conv.rows[0]!.id,
          feedback === 'useful' ? 'SUCCESS' : 'BAD_CASE',
          feedback,
          confidence === null ? null : JSON.stringify({ source: 'rule', confidence, reasoning: 'r', evaluatedAt: '2026-11-01T00:00:00Z' }),
        ],
      );
      const id = s.rows[0]!.id;
      if (verdict !== null) {
        await db.pool.query(
          `INSERT INTO coverage_decision (session_id, evaluator_version, tenant_id, channel, verdict, reason_code, reference_count, top_score, gap_key, session_created_at)
           VALUES ($1, 'v1', $2, 'web', $3, $4, 0, 0, 'k', now())`,
          [id, tenant, verdict, verdict === 'covered' ? 'covered_has_references' : 'uncovered_no_references'],
        );
      }
      // A v2 decision that says the opposite must not count for v1.
      await db.pool.query(
        `INSERT INTO coverage_decision (session_id, evaluator_version, tenant_id, channel, verdict, reason_code, reference_count, top_score, gap_key, session_created_at)
         VALUES ($1, 'v2', $2, 'web', $3, 'covered_has_references', 0, 0, 'k', now())`,
        [id, tenant, verdict === 'covered' ? 'uncovered' : 'covered'],
      );
      await db.pool.query(
        `INSERT INTO session_feedback (tenant_id, session_id, feedback, status_before, created_at, updated_at) VALUES ($1, $2, $3, 'SUCCESS', $4, $4)`,
        [tenant, id, feedback, new Date(at).toISOString()],
      );
    }
    seeded.set(tenant, rows);
  }

  function expected(tenant: TenantId, fromTs: string, toTs: string, threshold: number): { selfEvaluation: AgreementTable; coverage: AgreementTable } {
    const empty = (): AgreementTable => ({ goodUseful: 0, goodNotUseful: 0, badUseful: 0, badNotUseful: 0 });
    const out = { selfEvaluation: empty(), coverage: empty() };
    const cell = (good: boolean, useful: boolean) =>
      (good ? (useful ? 'goodUseful' : 'goodNotUseful') : useful ? 'badUseful' : 'badNotUseful') as keyof AgreementTable;
    for (const r of seeded.get(tenant) ?? []) {
      if (r.at < Date.parse(fromTs) || r.at >= Date.parse(toTs)) continue;
      const useful = r.feedback === 'useful';
      if (typeof r.confidence === 'number') out.selfEvaluation[cell(r.confidence / 100 >= threshold, useful)]++;
      if (r.verdict !== null) out.coverage[cell(r.verdict === 'covered', useful)]++;
    }
    return out;
  }

  beforeAll(async () => {
    medium = await newMediumTest({ max: 10 });
    db = medium.db;
    repo = await medium.service(MonitoringRepository);
    [a, b] = (await medium.tenants('agree-a', 'agree-b')) as [TenantId, TenantId];
    await seed(a, 120, 1);
    await seed(b, 40, 4);
  }, 120_000);
  afterAll(async () => {
    await medium?.close();
  });

  const windows = [
    { name: 'everything', fromTs: '2026-10-01T00:00:00Z', toTs: '2026-12-01T00:00:00Z' },
    { name: 'one day', fromTs: '2026-11-03T00:00:00Z', toTs: '2026-11-04T00:00:00Z' },
    // A feedback exactly at `from` is in, one exactly at `to` is out (base + 5 h + 1 s for tenant a).
    { name: 'edges', fromTs: '2026-11-02T05:00:01Z', toTs: '2026-11-02T07:00:01Z' },
    { name: 'before any feedback', fromTs: '2026-01-01T00:00:00Z', toTs: '2026-02-01T00:00:00Z' },
  ];

  it.each(windows.flatMap((w) => [0, 0.35, 0.6, 1].map((threshold) => ({ ...w, threshold }))))(
    '$name at threshold $threshold: the SQL tables equal the count of the seeded rows, per tenant',
    async ({ fromTs, toTs, threshold }) => {
      for (const tenant of [a, b]) {
        expect(await repo.agreementTables(tenant, { fromTs, toTs }, 'v1', threshold)).toEqual(expected(tenant, fromTs, toTs, threshold));
      }
    },
  );

  it('the edges window counts exactly two feedbacks of tenant a, and the whole seed is non-trivial', async () => {
    const edge = await repo.agreementTables(a, { fromTs: windows[2]!.fromTs, toTs: windows[2]!.toTs }, 'v1', 0.6);
    const n = (t: AgreementTable) => t.goodUseful + t.goodNotUseful + t.badUseful + t.badNotUseful;
    expect(
      n(edge.coverage) +
        seeded
          .get(a)!
          .slice(5, 7)
          .filter((r) => r.verdict === null).length,
    ).toBe(2);
    const all = await repo.agreementTables(a, { fromTs: windows[0]!.fromTs, toTs: windows[0]!.toTs }, 'v1', 0.6);
    for (const cell of Object.values(all.selfEvaluation)) expect(cell).toBeGreaterThan(0);
    for (const cell of Object.values(all.coverage)) expect(cell).toBeGreaterThan(0);
    // Malformed ('x') and missing self-evaluations are left out; sessions without a v1 decision too.
    expect(n(all.selfEvaluation)).toBe(seeded.get(a)!.filter((r) => typeof r.confidence === 'number').length);
    expect(n(all.coverage)).toBe(seeded.get(a)!.filter((r) => r.verdict !== null).length);
    expect(n(all.selfEvaluation)).toBeLessThan(120);
  });
});
