import { Injectable } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import { Database, type Expression, sql } from '@arbiter/database';
import { memoryKey, type MemoryMark, type SessionMemoryState } from './action-memory.js';
import { isStrongRelevance, type RelevanceLevel } from './relevance.js';

/**
 * Marker of the lookup write's failed claim: the statement casts a text holding it to int, which fails
 * at run time (never at plan time: the text depends on the rows read) and so rolls the whole statement back.
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

/** Document order (file, then section): the order in which a lookup claims its documents. */
function byDocument(a: MemoryMark, b: MemoryMark): number {
  return a.filePath < b.filePath ? -1 : a.filePath > b.filePath ? 1 : a.sectionKey < b.sectionKey ? -1 : a.sectionKey > b.sectionKey ? 1 : 0;
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
   *
   * Both checks fail inside the claim itself, before the statement's other steps: Citus runs each CTE as a step
   * of its own, in order, so a claim that only counted its rows went on to slide the memory while holding the
   * conflicting row, and concurrent lookups of one session deadlocked (docs/SCALING.md "Running on Citus").
   * The claims are made in document order, so two lookups claiming the same documents wait in one order.
   */
  async commitLookup(
    tenantId: TenantId,
    sessionId: string,
    marks: readonly MemoryMark[],
    ttlSeconds: number,
    extraCtes?: Expression<unknown>,
    assumedEmpty = false,
  ): Promise<void> {
    const ordered = [...marks].sort(byDocument);
    const files = ordered.map((m) => m.filePath);
    const sections = ordered.map((m) => m.sectionKey);
    const lost = sql.lit(` ${CLAIM_LOST}`);
    // Read in the claim's SELECT, so with the statement's snapshot on PostgreSQL and before the claim's own rows
    // on Citus (where a check in the final SELECT ran after the claim and saw them); a one-time filter, so also
    // evaluated without marks.
    const noLiveMemory = sql`WHERE (SELECT CASE WHEN count(*) = 0 THEN true ELSE (count(*)::text || ${lost})::int = 0 END
                                  FROM retrieval_memory p WHERE p.tenant_id = ${tenantId}::uuid AND p.session_id = ${sessionId} AND p.expires_at > now())`;
    const statement = sql`WITH claimed AS (
         INSERT INTO retrieval_memory (tenant_id, session_id, domain, file_path, section_key, relevance_level, expires_at)
         SELECT ${tenantId}::uuid, ${sessionId}, m.domain, m.file_path, m.section_key, m.level, now() + make_interval(secs => ${ttlSeconds}::int)
           FROM unnest(${ordered.map((m) => m.domain)}::varchar[], ${files}::varchar[], ${sections}::varchar[], ${ordered.map((m) => m.level)}::varchar[])
                AS m(domain, file_path, section_key, level)
         ${assumedEmpty ? noLiveMemory : sql``}
         -- A live row fails the claim here: the cast of the marker text to int fails when it runs, never at plan time.
         ON CONFLICT ON CONSTRAINT uq_retrieval_memory_doc DO UPDATE SET
           domain = EXCLUDED.domain, expires_at = EXCLUDED.expires_at, created_at = EXCLUDED.created_at,
           relevance_level = CASE WHEN retrieval_memory.expires_at <= EXCLUDED.created_at THEN EXCLUDED.relevance_level
                                  ELSE (EXCLUDED.relevance_level || ${lost})::int::varchar END
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
       SELECT count(*)::int AS claimed FROM claimed`;
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
