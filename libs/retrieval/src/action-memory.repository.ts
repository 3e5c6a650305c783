import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { TenantId } from '@arbiter/common';
import type { SqlParams } from '@arbiter/sessions';
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

/** SQL of the persisted action memory (`retrieval_memory`). Scoped by tenant, then session. */
@Injectable()
export class ActionMemoryRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * The lookup's first statement (docs/hot-paths.md "Chat turn"): the session's live memory and, when
   * `settingsJson` is given (a scalar subquery of the settings row as json, `$1` = the tenant), the
   * tenant's retrieval settings — one round trip.
   */
  async readForLookup(
    tenantId: TenantId,
    sessionId: string,
    settingsJson?: (tenantPlaceholder: string) => string,
  ): Promise<{ memory: SessionMemoryState; settings: unknown }> {
    const rows: { memory: MemoryRow[] | null; settings: unknown }[] = await this.ds.query(
      `SELECT (SELECT json_agg(json_build_object('domain', m.domain, 'file_path', m.file_path, 'section_key', m.section_key, 'relevance_level', m.relevance_level) ORDER BY m.created_at, m.id)
                 FROM retrieval_memory m WHERE m.tenant_id = $1 AND m.session_id = $2 AND m.expires_at > now()) AS memory,
              ${settingsJson ? settingsJson('$1') : 'NULL::json'} AS settings`,
      [tenantId, sessionId],
    );
    return { memory: memoryState(rows[0]?.memory ?? []), settings: rows[0]?.settings ?? null };
  }

  /**
   * The lookup's write, one statement of data-modifying CTEs (docs/hot-paths.md "Chat turn"): claims the
   * returned documents in the session's memory, slides the session's expiry, and runs `extraCtes` (the
   * sessions lib's tool invocation). No lock and no transaction round trips: a document is claimed by
   * inserting its row, or by taking over an expired one; a live row of a concurrent lookup of the same
   * session makes the claim fail, and then the whole statement fails (nothing written) with
   * {@link ClaimLostError}: the caller reads the memory again and decides again.
   */
  async commitLookup(
    tenantId: TenantId,
    sessionId: string,
    marks: readonly MemoryMark[],
    ttlSeconds: number,
    p: SqlParams,
    extraCtes?: (p: SqlParams) => string,
  ): Promise<void> {
    const tenant = p.add(tenantId, 'uuid');
    const session = p.add(sessionId);
    const ttl = p.add(ttlSeconds, 'int');
    const files = p.add(
      marks.map((m) => m.filePath),
      'varchar[]',
    );
    const sections = p.add(
      marks.map((m) => m.sectionKey),
      'varchar[]',
    );
    const sql = `WITH claimed AS (
         INSERT INTO retrieval_memory (tenant_id, session_id, domain, file_path, section_key, relevance_level, expires_at)
         SELECT ${tenant}, ${session}, m.domain, m.file_path, m.section_key, m.level, now() + make_interval(secs => ${ttl})
           FROM unnest(${p.add(
             marks.map((m) => m.domain),
             'varchar[]',
           )}, ${files}, ${sections}, ${p.add(
             marks.map((m) => m.level),
             'varchar[]',
           )}) AS m(domain, file_path, section_key, level)
         ON CONFLICT ON CONSTRAINT uq_retrieval_memory_doc DO UPDATE SET
           domain = EXCLUDED.domain, relevance_level = EXCLUDED.relevance_level, expires_at = EXCLUDED.expires_at, created_at = now()
           WHERE retrieval_memory.expires_at <= now()
         RETURNING 1),
       slid AS (
         UPDATE retrieval_memory SET expires_at = now() + make_interval(secs => ${ttl})
          WHERE tenant_id = ${tenant} AND session_id = ${session} AND expires_at > now()
            AND NOT EXISTS (SELECT 1 FROM unnest(${files}, ${sections}) AS n(file_path, section_key)
                             WHERE n.file_path = retrieval_memory.file_path AND n.section_key = retrieval_memory.section_key)
         RETURNING 1)${
           extraCtes
             ? `,
${extraCtes(p)}`
             : ''
         }
       SELECT CASE WHEN (SELECT count(*) FROM claimed) = ${p.add(marks.length, 'int')} THEN 1
                   ELSE ((SELECT count(*) FROM claimed)::text || ' ${CLAIM_LOST}')::int END AS ok`;
    try {
      await this.ds.query(sql, p.values);
    } catch (error) {
      if (error instanceof Error && error.message.includes(CLAIM_LOST)) throw new ClaimLostError();
      throw error;
    }
  }

  /** Deletes up to `limit` expired rows of the tenant; returns how many (expiry job, in batches). */
  async purgeExpired(tenantId: TenantId, limit = 5000): Promise<number> {
    const res: [unknown[], number] = await this.ds.query(
      `DELETE FROM retrieval_memory WHERE tenant_id = $1 AND id IN (SELECT id FROM retrieval_memory WHERE tenant_id = $1 AND expires_at <= now() LIMIT $2)`,
      [tenantId, limit],
    );
    return res[1];
  }

  /** Test/ops helper: ages a session so it is expired. */
  async expireSession(tenantId: TenantId, sessionId: string): Promise<void> {
    await this.ds.query(`UPDATE retrieval_memory SET expires_at = now() - interval '1 second' WHERE tenant_id = $1 AND session_id = $2`, [tenantId, sessionId]);
  }
}
