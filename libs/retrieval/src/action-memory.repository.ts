import { Injectable } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import { Database, type Expression, sql } from '@arbiter/database';
import { memoryKey, type MemoryMark, type SessionMemoryState } from './action-memory.js';
import { isStrongRelevance, type RelevanceLevel } from './relevance.js';

/**
 * Marker of the lookup write's failed claim: the statement casts a text holding it to int, which fails
 * at run time (never at plan time: it depends on the claims) and so rolls the whole statement back.
 */
const CLAIM_LOST = 'retrieval memory claims lost to a concurrent lookup';

/** A concurrent lookup of the same session claimed one of the documents first: nothing was written. */
export class ClaimLostError extends Error {
  constructor() {
    super(CLAIM_LOST);
  }
}

interface MemoryRow {
  domain: string;
  file_path: string;
  section_key?: string;
  relevance_level: RelevanceLevel;
}

/** The session's memory state from its live rows, in first-retrieved order. */
function memoryState(rows: readonly MemoryRow[]): SessionMemoryState {
  const docs = new Set<string>();
  const domains = new Map<string, { strong: boolean }>();
  for (const r of rows) {
    docs.add(memoryKey(r.file_path, r.section_key ?? ''));
    const prev = domains.get(r.domain);
    domains.set(r.domain, { strong: (prev?.strong ?? false) || isStrongRelevance(r.relevance_level) });
  }
  return { docs, domains };
}

/** SQL of the persisted action memory (`retrieval_memory`). Scoped by tenant, then session. On the typed data layer (docs/data-layer.md). */
@Injectable()
export class ActionMemoryRepository {
  constructor(private readonly database: Database) {}

  /**
   * The lookup's first statement (docs/hot-paths.md "Chat turn"): the session's live memory and, when
   * `settingsJson` is given (a scalar subquery of the tenant's settings row as json,
   * `RetrievalSettingsRepository.jsonSubquery`), the tenant's retrieval settings — one round trip.
   */
  async readForLookup<S = never>(
    tenantId: TenantId,
    sessionId: string,
    settingsJson?: Expression<S | null>,
  ): Promise<{ memory: SessionMemoryState; settings: S | null }> {
    const { rows } = await sql<{ memory: MemoryRow[] | null; settings: S | null }>`
      SELECT (SELECT json_agg(json_build_object('domain', m.domain, 'file_path', m.file_path, 'section_key', m.section_key, 'relevance_level', m.relevance_level) ORDER BY m.created_at, m.id)
                FROM retrieval_memory m WHERE m.tenant_id = ${tenantId} AND m.session_id = ${sessionId} AND m.expires_at > now()) AS memory,
             ${settingsJson ?? sql`NULL::json`} AS settings`.execute(this.database.db);
    return { memory: memoryState(rows[0]?.memory ?? []), settings: rows[0]?.settings ?? null };
  }

  /**
   * The lookup's write, one statement of data-modifying CTEs (docs/hot-paths.md "Chat turn"): claims the
   * returned documents in the session's memory, slides the session's expiry, and runs `extraCtes` (the
   * sessions lib's tool invocation). No lock and no transaction round trips: a document is claimed by
   * inserting its row, or by taking over an expired one; a live row of a concurrent lookup of the same
   * session makes the claim fail, and then the whole statement fails (nothing written) with
   * {@link ClaimLostError}: the caller reads the memory again and decides again. `assumedEmpty`: the decision
   * was made without reading the memory (a session the caller just opened); a live row of the session makes
   * the statement fail the same way.
   */
  async commitLookup(
    tenantId: TenantId,
    sessionId: string,
    marks: readonly MemoryMark[],
    ttlSeconds: number,
    extraCtes?: Expression<unknown>,
    assumedEmpty = false,
  ): Promise<void> {
    const files = marks.map((m) => m.filePath);
    const sections = marks.map((m) => m.sectionKey);
    const statement = sql`WITH claimed AS (
         INSERT INTO retrieval_memory (tenant_id, session_id, domain, file_path, section_key, relevance_level, expires_at)
         SELECT ${tenantId}::uuid, ${sessionId}, m.domain, m.file_path, m.section_key, m.level, now() + make_interval(secs => ${ttlSeconds}::int)
           FROM unnest(${marks.map((m) => m.domain)}::varchar[], ${files}::varchar[], ${sections}::varchar[], ${marks.map((m) => m.level)}::varchar[])
                AS m(domain, file_path, section_key, level)
         ON CONFLICT ON CONSTRAINT uq_retrieval_memory_doc DO UPDATE SET
           domain = EXCLUDED.domain, relevance_level = EXCLUDED.relevance_level, expires_at = EXCLUDED.expires_at, created_at = EXCLUDED.created_at
           WHERE retrieval_memory.expires_at <= EXCLUDED.created_at
         RETURNING 1),
       slid AS (
         UPDATE retrieval_memory SET expires_at = now() + make_interval(secs => ${ttlSeconds}::int)
          WHERE tenant_id = ${tenantId}::uuid AND session_id = ${sessionId} AND expires_at > now()
            AND NOT EXISTS (SELECT 1 FROM unnest(${files}::varchar[], ${sections}::varchar[]) AS n(file_path, section_key)
                             WHERE n.file_path = retrieval_memory.file_path AND n.section_key = retrieval_memory.section_key)
         RETURNING 1)${
           extraCtes
             ? sql`,
       ${extraCtes}`
             : sql``
         }
       SELECT CASE WHEN (SELECT count(*) FROM claimed) = ${marks.length}::int${
         // The statement's snapshot: the memory as it was before this write.
         assumedEmpty
           ? sql` AND NOT EXISTS (SELECT 1 FROM retrieval_memory m WHERE m.tenant_id = ${tenantId}::uuid AND m.session_id = ${sessionId} AND m.expires_at > now())`
           : sql``
       } THEN 1
                   ELSE ((SELECT count(*) FROM claimed)::text || ${sql.lit(` ${CLAIM_LOST}`)})::int END AS ok`;
    try {
      await statement.execute(this.database.db);
    } catch (error) {
      if (error instanceof Error && error.message.includes(CLAIM_LOST)) throw new ClaimLostError();
      throw error;
    }
  }

  /** Deletes up to `limit` expired rows of the tenant; returns how many (expiry job, in batches). */
  async purgeExpired(tenantId: TenantId, limit = 5000): Promise<number> {
    const result = await this.database.db
      .deleteFrom('retrieval_memory')
      .where('tenant_id', '=', tenantId)
      .where('id', 'in', (q) =>
        q
          .selectFrom('retrieval_memory')
          .select('id')
          .where('tenant_id', '=', tenantId)
          .where('expires_at', '<=', sql<Date>`now()`)
          .limit(limit),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Test/ops helper: ages a session so it is expired. */
  async expireSession(tenantId: TenantId, sessionId: string): Promise<void> {
    await this.database.db
      .updateTable('retrieval_memory')
      .set({ expires_at: sql<Date>`now() - interval '1 second'` })
      .where('tenant_id', '=', tenantId)
      .where('session_id', '=', sessionId)
      .execute();
  }
}
