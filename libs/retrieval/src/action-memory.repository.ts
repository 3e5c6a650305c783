import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { TenantId } from '@arbiter/common';
import type { SqlParams } from '@arbiter/sessions';
import { type MemoryMark, type SessionMemoryState } from './action-memory.js';
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
  relevance_level: RelevanceLevel;
}

/** The session's memory state from its live rows, in first-retrieved order. */
function memoryState(rows: readonly MemoryRow[]): SessionMemoryState {
  const docs = new Set<string>();
  const domains = new Map<string, { strong: boolean }>();
  for (const r of rows) {
    docs.add(r.file_path);
    const prev = domains.get(r.domain);
    domains.set(r.domain, { strong: (prev?.strong ?? false) || isStrongRelevance(r.relevance_level) });
  }
  return { docs, domains };
}

/** A transaction that took the session's lock (`transaction` then `lockSession`). */
export type SessionTx = EntityManager;

/** SQL of the persisted action memory (`retrieval_memory`). Scoped by tenant, then session. */
@Injectable()
export class ActionMemoryRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * The lookup's first statement (docs/hot-paths.md "Chat turn"): the session's live memory and, when
   * `settingsJson` is given (a scalar subquery of the settings row as json, `$1` = the tenant), the
   * tenant's retrieval settings — one round trip.
   */
  async readForLookup(tenantId: TenantId, sessionId: string, settingsJson?: (tenantPlaceholder: string) => string): Promise<{ memory: SessionMemoryState; settings: unknown }> {
    const rows: { memory: MemoryRow[] | null; settings: unknown }[] = await this.ds.query(
      `SELECT (SELECT json_agg(json_build_object('domain', m.domain, 'file_path', m.file_path, 'relevance_level', m.relevance_level) ORDER BY m.created_at, m.id)
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
  async commitLookup(tenantId: TenantId, sessionId: string, marks: readonly MemoryMark[], ttlSeconds: number, p: SqlParams, extraCtes?: (p: SqlParams) => string): Promise<void> {
    const tenant = p.add(tenantId, 'uuid');
    const session = p.add(sessionId);
    const ttl = p.add(ttlSeconds, 'int');
    const files = p.add(marks.map((m) => m.filePath), 'varchar[]');
    const sql = `WITH claimed AS (
         INSERT INTO retrieval_memory (tenant_id, session_id, domain, file_path, relevance_level, expires_at)
         SELECT ${tenant}, ${session}, m.domain, m.file_path, m.level, now() + make_interval(secs => ${ttl})
           FROM unnest(${p.add(marks.map((m) => m.domain), 'varchar[]')}, ${files}, ${p.add(marks.map((m) => m.level), 'varchar[]')}) AS m(domain, file_path, level)
         ON CONFLICT ON CONSTRAINT uq_retrieval_memory_doc DO UPDATE SET
           domain = EXCLUDED.domain, relevance_level = EXCLUDED.relevance_level, expires_at = EXCLUDED.expires_at, created_at = now()
           WHERE retrieval_memory.expires_at <= now()
         RETURNING 1),
       slid AS (
         UPDATE retrieval_memory SET expires_at = now() + make_interval(secs => ${ttl})
          WHERE tenant_id = ${tenant} AND session_id = ${session} AND expires_at > now() AND NOT (file_path = ANY(${files}))
         RETURNING 1)${extraCtes ? `,
${extraCtes(p)}` : ''}
       SELECT CASE WHEN (SELECT count(*) FROM claimed) = ${p.add(marks.length, 'int')} THEN 1
                   ELSE ((SELECT count(*) FROM claimed)::text || ' ${CLAIM_LOST}')::int END AS ok`;
    try {
      await this.ds.query(sql, p.values);
    } catch (error) {
      if (error instanceof Error && error.message.includes(CLAIM_LOST)) throw new ClaimLostError();
      throw error;
    }
  }

  /** A READ COMMITTED transaction for one lookup (reads, then the session lock, decide and mark). */
  transaction<R>(fn: (tx: SessionTx) => Promise<R>): Promise<R> {
    return this.ds.transaction(fn);
  }

  /**
   * Takes a transaction-level advisory lock on (tenant, session) inside `tx`: lookups of one session are
   * serialized across connections and replicas (other sessions run in parallel); released at commit.
   * Expired rows of the session are dropped, so an expired session starts with a fresh memory.
   */
  async lockSession(tx: SessionTx, tenantId: TenantId, sessionId: string): Promise<void> {
    await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 7260311020))', [`${tenantId}:${sessionId}`]);
    await tx.query('DELETE FROM retrieval_memory WHERE tenant_id = $1 AND session_id = $2 AND expires_at <= now()', [tenantId, sessionId]);
  }

  async load(tenantId: TenantId, sessionId: string, tx: SessionTx | DataSource = this.ds): Promise<SessionMemoryState> {
    const rows: { domain: string; file_path: string; relevance_level: RelevanceLevel }[] = await tx.query(
      `SELECT domain, file_path, relevance_level FROM retrieval_memory
        WHERE tenant_id = $1 AND session_id = $2 AND expires_at > now() ORDER BY created_at, id`,
      [tenantId, sessionId],
    );
    return memoryState(rows);
  }

  /** Records the marks and slides the whole session's expiry to now + ttl. */
  async mark(tx: SessionTx, tenantId: TenantId, sessionId: string, marks: readonly MemoryMark[], ttlSeconds: number): Promise<void> {
    if (marks.length) {
      await tx.query(
        `INSERT INTO retrieval_memory (tenant_id, session_id, domain, file_path, relevance_level, expires_at)
         SELECT $1, $2, m.domain, m.file_path, m.level, now() + make_interval(secs => $6)
           FROM unnest($3::varchar[], $4::varchar[], $5::varchar[]) AS m(domain, file_path, level)
         ON CONFLICT ON CONSTRAINT uq_retrieval_memory_doc DO UPDATE SET
           relevance_level = CASE WHEN retrieval_memory.relevance_level IN ('PRECISE', 'HIGHLY_RELEVANT') THEN retrieval_memory.relevance_level ELSE EXCLUDED.relevance_level END,
           expires_at = EXCLUDED.expires_at`,
        [tenantId, sessionId, marks.map((m) => m.domain), marks.map((m) => m.filePath), marks.map((m) => m.level), ttlSeconds],
      );
    }
    await tx.query('UPDATE retrieval_memory SET expires_at = now() + make_interval(secs => $3) WHERE tenant_id = $1 AND session_id = $2', [tenantId, sessionId, ttlSeconds]);
  }

  /** Deletes up to `limit` expired rows of the tenant; returns how many (expiry job, in batches). */
  async purgeExpired(tenantId: TenantId, limit = 5000): Promise<number> {
    const res: [unknown[], number] = await this.ds.query(
      `DELETE FROM retrieval_memory WHERE id IN (SELECT id FROM retrieval_memory WHERE tenant_id = $1 AND expires_at <= now() LIMIT $2)`,
      [tenantId, limit],
    );
    return res[1];
  }

  /** Test/ops helper: ages a session so it is expired. */
  async expireSession(tenantId: TenantId, sessionId: string): Promise<void> {
    await this.ds.query(`UPDATE retrieval_memory SET expires_at = now() - interval '1 second' WHERE tenant_id = $1 AND session_id = $2`, [tenantId, sessionId]);
  }
}
