import { Injectable } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import { Database, sql, type Tx } from '@arbiter/database';
import type { BulkItemResult } from './knowledge.service.js';
import type { NewDocument } from './knowledge.repository.js';
import type { FileItemPayload } from './files/knowledge-files.repository.js';

export type ImportItemStatus = BulkItemResult['status'];

export interface PendingImportItem {
  seq: number;
  /** A JSON document, or an uploaded file of a file import (docs/documents.md "Upload"). */
  document: NewDocument | FileItemPayload;
}

export interface ImportItemOutcome {
  seq: number;
  status: ImportItemStatus;
  documentId?: string | null;
  error?: BulkItemResult['error'] | null;
  /** A file's outcome beyond its status (file imports, docs/documents.md "Upload"). */
  detail?: Record<string, unknown> | null;
}

export interface ImportSummary {
  id: string;
  jobId: string | null;
  total: number;
  createdAt: Date;
  counts: Record<ImportItemStatus | 'pending', number>;
}

/** Items per insert statement when an import is stored (bounded statements: the driver serialises each). */
const INSERT_BATCH = 200;

/** The `knowledge_import` and `knowledge_import_item` tables (owned by the retrieval lib). On the typed data layer (docs/data-layer.md). */
@Injectable()
export class KnowledgeImportRepository {
  constructor(private readonly database: Database) {}

  /**
   * Stores an import and its items in one transaction, with `record` (the request's audit entry, docs/http-edge.md
   * "Audit log"). Items carry the document to write, or their validation outcome.
   */
  async create(
    tenantId: TenantId,
    items: readonly { seq: number; filePath: string | null; document: NewDocument | null; failed: BulkItemResult | null }[],
    record: (tx: Tx, importId: string) => Promise<void>,
  ): Promise<{ id: string }> {
    return this.database.transaction(async (tx) => {
      const { id } = await tx.insertInto('knowledge_import').values({ tenant_id: tenantId, total: items.length }).returning('id').executeTakeFirstOrThrow();
      for (let i = 0; i < items.length; i += INSERT_BATCH) {
        const batch = items.slice(i, i + INSERT_BATCH);
        await sql`INSERT INTO knowledge_import_item (tenant_id, import_id, seq, file_path, document, status, error)
           SELECT ${tenantId}::uuid, ${id}::uuid, t.seq, t.file_path, t.document, t.status, t.error
             FROM unnest(${batch.map((b) => b.seq)}::int[], ${batch.map((b) => b.filePath)}::text[], ${batch.map((b) => (b.document ? JSON.stringify(b.document) : null))}::jsonb[],
                         ${batch.map((b) => (b.failed ? 'failed' : null))}::text[], ${batch.map((b) => (b.failed?.error ? JSON.stringify(b.failed.error) : null))}::jsonb[])
                  AS t(seq, file_path, document, status, error)`.execute(tx);
      }
      await record(tx, id);
      return { id };
    });
  }

  async attachJob(tenantId: TenantId, importId: string, jobId: string): Promise<void> {
    await this.database.db.updateTable('knowledge_import').set({ job_id: jobId }).where('tenant_id', '=', tenantId).where('id', '=', importId).execute();
  }

  async remove(tenantId: TenantId, importId: string): Promise<void> {
    await this.database.db.deleteFrom('knowledge_import').where('tenant_id', '=', tenantId).where('id', '=', importId).execute();
  }

  /** The next items without an outcome, in body order. */
  async pending(tenantId: TenantId, importId: string, limit: number): Promise<PendingImportItem[]> {
    // A pending item holds its document (stored with the import).
    const { rows } = await sql<{ seq: number; document: NewDocument | FileItemPayload }>`
      SELECT seq, document FROM knowledge_import_item
       WHERE tenant_id = ${tenantId} AND import_id = ${importId} AND status IS NULL ORDER BY seq LIMIT ${limit}`.execute(this.database.db);
    return rows.map((r) => ({ seq: r.seq, document: r.document }));
  }

  /** Items of the import without an outcome yet (the import job's progress total). */
  async countPending(tenantId: TenantId, importId: string): Promise<number> {
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM knowledge_import_item WHERE tenant_id = ${tenantId} AND import_id = ${importId} AND status IS NULL`.execute(
      this.database.db,
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** Records outcomes (one statement) and drops the stored documents of the items done. */
  async record(tenantId: TenantId, importId: string, outcomes: readonly ImportItemOutcome[]): Promise<void> {
    if (!outcomes.length) return;
    await sql`UPDATE knowledge_import_item i SET status = o.status, document_id = o.document_id, error = o.error, document = NULL,
              detail = coalesce(o.detail, i.detail)
         FROM unnest(${outcomes.map((o) => o.seq)}::int[], ${outcomes.map((o) => o.status)}::text[], ${outcomes.map((o) => o.documentId ?? null)}::uuid[],
                     ${outcomes.map((o) => (o.error ? JSON.stringify(o.error) : null))}::jsonb[], ${outcomes.map((o) => (o.detail ? JSON.stringify(o.detail) : null))}::jsonb[])
              AS o(seq, status, document_id, error, detail)
        WHERE i.tenant_id = ${tenantId} AND i.import_id = ${importId} AND i.seq = o.seq`.execute(this.database.db);
  }

  async summary(tenantId: TenantId, importId: string): Promise<ImportSummary | null> {
    const { rows } = await sql<{ id: string; job_id: string | null; total: number; created_at: Date; counts: Record<string, number> | null }>`
      SELECT i.id, i.job_id, i.total, i.created_at,
              (SELECT jsonb_object_agg(coalesce(status, 'pending'), n) FROM (SELECT status, count(*)::int AS n FROM knowledge_import_item
                 WHERE tenant_id = ${tenantId} AND import_id = i.id GROUP BY status) s) AS counts
         FROM knowledge_import i WHERE i.tenant_id = ${tenantId} AND i.id = ${importId}`.execute(this.database.db);
    const row = rows[0];
    if (!row) return null;
    const counts = { created: 0, updated: 0, unchanged: 0, failed: 0, pending: 0, ...(row.counts ?? {}) };
    return { id: row.id, jobId: row.job_id, total: row.total, createdAt: row.created_at, counts };
  }

  /** Items that failed (validation or write), in body order, at most `limit`. */
  async failures(tenantId: TenantId, importId: string, limit: number): Promise<BulkItemResult[]> {
    const { rows } = await sql<{ seq: number; file_path: string | null; error: BulkItemResult['error'] }>`
      SELECT seq, file_path, error FROM knowledge_import_item
       WHERE tenant_id = ${tenantId} AND import_id = ${importId} AND status = 'failed' ORDER BY seq LIMIT ${limit}`.execute(this.database.db);
    return rows.map((r) => ({ index: r.seq, filePath: r.file_path, status: 'failed', ...(r.error ? { error: r.error } : {}) }));
  }

  /** Deletes imports created before `before` (their items cascade); returns how many. */
  async purgeBefore(tenantId: TenantId, before: Date): Promise<number> {
    const result = await this.database.db.deleteFrom('knowledge_import').where('tenant_id', '=', tenantId).where('created_at', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
