import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { TenantId } from '@arbiter/common';
import { type MemoryMark, type SessionMemoryState } from './action-memory.js';
import { isStrongRelevance, type RelevanceLevel } from './relevance.js';

/** A transaction that took the session's lock (`transaction` then `lockSession`). */
export type SessionTx = EntityManager;

/** SQL of the persisted action memory (`retrieval_memory`). Scoped by tenant, then session. */
@Injectable()
export class ActionMemoryRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

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
    const docs = new Set<string>();
    const domains = new Map<string, { strong: boolean }>();
    for (const r of rows) {
      docs.add(r.file_path);
      const prev = domains.get(r.domain);
      domains.set(r.domain, { strong: (prev?.strong ?? false) || isStrongRelevance(r.relevance_level) });
    }
    return { docs, domains };
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
