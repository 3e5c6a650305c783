import { Injectable } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import { Database, sql } from '@arbiter/database';
import { v1DecisionSql } from './coverage-v1-sql.js';
import { undecidedSql, type CandidateSession, type KeysetPosition } from './coverage.repository.js';

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
 * Evaluator v1 as one statement per page: the keyset page of undecided succeeded sessions is read,
 * decided and inserted inside PostgreSQL (`INSERT … SELECT … ON CONFLICT DO NOTHING`), so no session
 * row travels to Node except the few SQL leaves to the TypeScript evaluator. Scoped by the tenant id. On the typed data
 * layer (docs/data-layer.md).
 */
@Injectable()
export class CoverageBackfillRepository {
  constructor(private readonly database: Database) {}

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
