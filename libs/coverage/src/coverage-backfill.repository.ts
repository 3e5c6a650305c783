import { Injectable } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import { Database, sql, type RawBuilder } from '@arbiter/database';
import { runSucceededSql } from '@arbiter/sessions';
import type { BackfillStorage, SetBasedBackfillStorage } from './coverage-backfill.js';
import { v1DecisionSql } from './coverage-v1-sql.js';
import { CoverageRepository, type DecisionRow } from './coverage.repository.js';

/** A session row as the evaluator needs it (jsonb as parsed by pg; validated by the evaluator). */
export interface CandidateSession {
  id: string;
  /** `created_at::text`: exact (microseconds) so a keyset cursor neither skips nor repeats rows. */
  createdAt: string;
  channel: string;
  status: string;
  /** How the run ended (`diagnosis_session.outcome`, unchanged by feedback); null for rows written before it existed. */
  outcome?: string | null;
  query: string;
  answer: string | null;
  references: unknown;
  media: unknown;
  knowledgeSearched: boolean;
}

export interface KeysetPosition {
  createdAt: string;
  id: string;
}

/** Succeeded sessions `s` of the tenant undecided for the version, after the keyset position and inside the window. */
export function undecidedSql(tenantId: TenantId, evaluatorVersion: string, after: KeysetPosition | null, window: { fromTs: string | null; toTs: string | null }): RawBuilder<boolean> {
  return sql<boolean>`s.tenant_id = ${tenantId}
    AND ${runSucceededSql('s')}
    AND (${after?.createdAt ?? null}::timestamptz IS NULL OR (s.created_at, s.id) > (${after?.createdAt ?? null}::timestamptz, ${after?.id ?? null}::uuid))
    AND (${window.fromTs}::timestamptz IS NULL OR s.created_at >= ${window.fromTs}::timestamptz)
    AND (${window.toTs}::timestamptz IS NULL OR s.created_at < ${window.toTs}::timestamptz)
    AND NOT EXISTS (SELECT 1 FROM coverage_decision d WHERE d.tenant_id = s.tenant_id AND d.session_id = s.id AND d.evaluator_version = ${evaluatorVersion})`;
}

const CANDIDATE_SELECT = sql`SELECT s.id, s.created_at::text AS "createdAt", s.channel, s.status, s.outcome, s.query, s.answer,
    s.source_references AS "references", s.media, s.knowledge_searched AS "knowledgeSearched"
  FROM diagnosis_session s`;

/** One page of the set-based backfill (docs/hot-paths.md, "Coverage backfill"). */
export interface SetBasedPage {
  /** Sessions in the page (succeeded, undecided for the version, after the cursor). */
  scanned: number;
  /** Sessions SQL decided (inserted, or decided meanwhile by the finish hook). */
  decidedInSql: number;
  /** Decisions this page's statement inserted. */
  inserted: number;
  /** The page's last keyset position (exact microseconds); null for an empty page. */
  last: KeysetPosition | null;
  /** Sessions left to the TypeScript evaluator (text outside the SQL alphabet, malformed references). */
  rest: CandidateSession[];
}

/**
 * All SQL of the coverage backfill (docs/hot-paths.md "Coverage backfill"): the window's day bounds, the keyset pages of
 * undecided succeeded sessions and their count for the row-by-row run, and evaluator v1 as one statement per page
 * ({@link decideV1Page}). The decisions' insert is {@link CoverageRepository}'s, shared with the finish hook. Scoped by
 * the tenant id. On the typed data layer (docs/data-layer.md).
 */
@Injectable()
export class CoverageBackfillRepository implements BackfillStorage, SetBasedBackfillStorage {
  constructor(
    private readonly database: Database,
    private readonly decisions: CoverageRepository,
  ) {}

  /** Timestamps of local midnight at `from` and the midnight after `to` in `timeZone` (null stays open). */
  async dayBounds(from: string | null, to: string | null, timeZone: string): Promise<{ fromTs: string | null; toTs: string | null }> {
    const { rows } = await sql<{ fromTs: Date | null; toTs: Date | null }>`
      SELECT (${from}::date::timestamp AT TIME ZONE ${timeZone}) AS "fromTs", ((${to}::date + 1)::timestamp AT TIME ZONE ${timeZone}) AS "toTs"`.execute(
      this.database.db,
    );
    const r = rows[0];
    return { fromTs: r?.fromTs ? new Date(r.fromTs).toISOString() : null, toTs: r?.toTs ? new Date(r.toTs).toISOString() : null };
  }

  /**
   * The next keyset page of succeeded sessions (created_at, id ascending) that have no decision for
   * `evaluatorVersion`, optionally inside a created_at window [fromTs, toTs).
   */
  async nextUndecided(
    tenantId: TenantId,
    evaluatorVersion: string,
    after: KeysetPosition | null,
    window: { fromTs: string | null; toTs: string | null },
    limit: number,
  ): Promise<CandidateSession[]> {
    // A keyset page is small and already ordered by the index: a parallel plan only adds a Gather
    // Merge (measured 3x slower once decisions exist), so this read runs serial.
    return this.database.transaction(async (tx) => {
      await sql`SET LOCAL max_parallel_workers_per_gather = 0`.execute(tx);
      const { rows } = await sql<CandidateSession>`${CANDIDATE_SELECT}
         WHERE ${undecidedSql(tenantId, evaluatorVersion, after, window)}
         ORDER BY s.created_at, s.id
         LIMIT ${limit}`.execute(tx);
      return rows;
    });
  }

  /**
   * How many sessions `nextUndecided` would still return after `after` (same filter, one count): the backfill job's
   * remaining items, for its progress total.
   */
  async countUndecided(
    tenantId: TenantId,
    evaluatorVersion: string,
    after: KeysetPosition | null,
    window: { fromTs: string | null; toTs: string | null },
  ): Promise<number> {
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n
         FROM diagnosis_session s
        WHERE ${undecidedSql(tenantId, evaluatorVersion, after, window)}`.execute(this.database.db);
    return Number(rows[0]?.n ?? 0);
  }

  /** One statement, so one batch commits atomically; ON CONFLICT makes it idempotent ({@link CoverageRepository.insertDecisions}). */
  insertDecisions(tenantId: TenantId, rows: readonly DecisionRow[]): Promise<number> {
    return this.decisions.insertDecisions(tenantId, rows);
  }

  /**
   * Evaluator v1 as one statement per page: the keyset page of undecided succeeded sessions is read,
   * decided and inserted inside PostgreSQL (`INSERT … SELECT … ON CONFLICT DO NOTHING`), so no session
   * row travels to Node except the few SQL leaves to the TypeScript evaluator.
   */
  decideV1Page(
    tenantId: TenantId,
    evaluatorVersion: string,
    after: KeysetPosition | null,
    window: { fromTs: string | null; toTs: string | null },
    limit: number,
  ): Promise<SetBasedPage> {
    const v1 = v1DecisionSql();
    // An explicit transaction: pglite-socket interleaves extended-protocol messages of other
    // connections unless a transaction is open (bench/coverage/README.md).
    return this.database.transaction(async (tx) => {
      await sql`SET LOCAL max_parallel_workers_per_gather = 0`.execute(tx);
      const { rows } = await sql<{
        scanned: number;
        decided: number;
        inserted: number;
        last_created_at: string | null;
        last_id: string | null;
        rest: CandidateSession[] | null;
      }>`WITH page AS MATERIALIZED (
             SELECT s.id, s.created_at, s.channel, s.status, s.outcome, s.query, s.answer, s.source_references AS refs, s.media, s.knowledge_searched
               FROM diagnosis_session s
              WHERE ${undecidedSql(tenantId, evaluatorVersion, after, window)}
              ORDER BY s.created_at, s.id
              LIMIT ${limit}),
           decided AS MATERIALIZED (
             SELECT p.id, p.created_at, p.channel, ${sql.raw(v1.columns)}
               FROM page p ${sql.raw(v1.lateral)}),
           ins AS (
             INSERT INTO coverage_decision
               (session_id, evaluator_version, tenant_id, channel, verdict, reason_code, reference_count, top_score, gap_key, session_created_at)
             SELECT x.id, ${evaluatorVersion}, ${tenantId}, x.channel, x.verdict, x.reason_code, x.reference_count, x.top_score, x.gap_key, x.created_at
               FROM decided x WHERE x.fast
              ORDER BY x.id
             ON CONFLICT ON CONSTRAINT pk_coverage_decision DO NOTHING
             RETURNING 1)
           SELECT (SELECT count(*) FROM page)::int AS scanned,
                  (SELECT count(*) FROM decided WHERE fast)::int AS decided,
                  (SELECT count(*) FROM ins)::int AS inserted,
                  l.created_at::text AS last_created_at, l.id AS last_id,
                  (SELECT json_agg(json_build_object(
                            'id', p.id, 'createdAt', p.created_at::text, 'channel', p.channel, 'status', p.status, 'outcome', p.outcome,
                            'query', p.query, 'answer', p.answer, 'references', p.refs, 'media', p.media, 'knowledgeSearched', p.knowledge_searched)
                          ORDER BY p.created_at, p.id)
                     FROM page p JOIN decided x ON x.id = p.id WHERE NOT x.fast) AS rest
             FROM (SELECT 1) one
             LEFT JOIN LATERAL (SELECT p.created_at, p.id FROM page p ORDER BY p.created_at DESC, p.id DESC LIMIT 1) l ON true`.execute(tx);
      const r = rows[0];
      return {
        scanned: r?.scanned ?? 0,
        decidedInSql: r?.decided ?? 0,
        inserted: r?.inserted ?? 0,
        last: r?.last_created_at && r.last_id ? { createdAt: r.last_created_at, id: r.last_id } : null,
        rest: r?.rest ?? [],
      };
    });
  }
}
