import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { TenantId } from '@arbiter/common';
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

/** The `knowledge_import` and `knowledge_import_item` tables (owned by the retrieval lib). */
@Injectable()
export class KnowledgeImportRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * Stores an import and its items in one transaction, with `record` (the request's audit entry, docs/http-edge.md
   * "Audit log"). Items carry the document to write, or their validation outcome.
   */
  async create(
    tenantId: TenantId,
    items: readonly { seq: number; filePath: string | null; document: NewDocument | null; failed: BulkItemResult | null }[],
    record: (em: EntityManager, importId: string) => Promise<void>,
  ): Promise<{ id: string }> {
    return this.ds.transaction(async (em) => {
      const [row] = await em.query<{ id: string }[]>('INSERT INTO knowledge_import (tenant_id, total) VALUES ($1, $2) RETURNING id', [tenantId, items.length]);
      const id = row!.id;
      for (let i = 0; i < items.length; i += INSERT_BATCH) {
        const batch = items.slice(i, i + INSERT_BATCH);
        await em.query(
          `INSERT INTO knowledge_import_item (tenant_id, import_id, seq, file_path, document, status, error)
           SELECT $1, $2, t.seq, t.file_path, t.document, t.status, t.error
             FROM unnest($3::int[], $4::text[], $5::jsonb[], $6::text[], $7::jsonb[]) AS t(seq, file_path, document, status, error)`,
          [
            tenantId,
            id,
            batch.map((b) => b.seq),
            batch.map((b) => b.filePath),
            batch.map((b) => (b.document ? JSON.stringify(b.document) : null)),
            batch.map((b) => (b.failed ? 'failed' : null)),
            batch.map((b) => (b.failed?.error ? JSON.stringify(b.failed.error) : null)),
          ],
        );
      }
      await record(em, id);
      return { id };
    });
  }

  async attachJob(tenantId: TenantId, importId: string, jobId: string): Promise<void> {
    await this.ds.query('UPDATE knowledge_import SET job_id = $3 WHERE tenant_id = $1 AND id = $2', [tenantId, importId, jobId]);
  }

  async remove(tenantId: TenantId, importId: string): Promise<void> {
    await this.ds.query('DELETE FROM knowledge_import WHERE tenant_id = $1 AND id = $2', [tenantId, importId]);
  }

  /** The next items without an outcome, in body order. */
  async pending(tenantId: TenantId, importId: string, limit: number): Promise<PendingImportItem[]> {
    const rows = await this.ds.query<{ seq: number; document: NewDocument | FileItemPayload }[]>(
      'SELECT seq, document FROM knowledge_import_item WHERE tenant_id = $1 AND import_id = $2 AND status IS NULL ORDER BY seq LIMIT $3',
      [tenantId, importId, limit],
    );
    return rows.map((r) => ({ seq: r.seq, document: r.document }));
  }

  /** Items of the import without an outcome yet (the import job's progress total). */
  async countPending(tenantId: TenantId, importId: string): Promise<number> {
    const rows: { n: number }[] = await this.ds.query(
      'SELECT count(*)::int AS n FROM knowledge_import_item WHERE tenant_id = $1 AND import_id = $2 AND status IS NULL',
      [tenantId, importId],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** Records outcomes (one statement) and drops the stored documents of the items done. */
  async record(tenantId: TenantId, importId: string, outcomes: readonly ImportItemOutcome[]): Promise<void> {
    if (!outcomes.length) return;
    await this.ds.query(
      `UPDATE knowledge_import_item i SET status = o.status, document_id = o.document_id, error = o.error, document = NULL,
              detail = coalesce(o.detail, i.detail)
         FROM unnest($3::int[], $4::text[], $5::uuid[], $6::jsonb[], $7::jsonb[]) AS o(seq, status, document_id, error, detail)
        WHERE i.tenant_id = $1 AND i.import_id = $2 AND i.seq = o.seq`,
      [
        tenantId,
        importId,
        outcomes.map((o) => o.seq),
        outcomes.map((o) => o.status),
        outcomes.map((o) => o.documentId ?? null),
        outcomes.map((o) => (o.error ? JSON.stringify(o.error) : null)),
        outcomes.map((o) => (o.detail ? JSON.stringify(o.detail) : null)),
      ],
    );
  }

  async summary(tenantId: TenantId, importId: string): Promise<ImportSummary | null> {
    const [row] = await this.ds.query<{ id: string; job_id: string | null; total: number; created_at: Date; counts: Record<string, number> | null }[]>(
      `SELECT i.id, i.job_id, i.total, i.created_at,
              (SELECT jsonb_object_agg(coalesce(status, 'pending'), n) FROM (SELECT status, count(*)::int AS n FROM knowledge_import_item
                 WHERE tenant_id = $1 AND import_id = i.id GROUP BY status) s) AS counts
         FROM knowledge_import i WHERE i.tenant_id = $1 AND i.id = $2`,
      [tenantId, importId],
    );
    if (!row) return null;
    const counts = { created: 0, updated: 0, unchanged: 0, failed: 0, pending: 0, ...(row.counts ?? {}) };
    return { id: row.id, jobId: row.job_id, total: row.total, createdAt: row.created_at, counts };
  }

  /** Items that failed (validation or write), in body order, at most `limit`. */
  async failures(tenantId: TenantId, importId: string, limit: number): Promise<BulkItemResult[]> {
    const rows = await this.ds.query<{ seq: number; file_path: string | null; error: BulkItemResult['error'] }[]>(
      `SELECT seq, file_path, error FROM knowledge_import_item WHERE tenant_id = $1 AND import_id = $2 AND status = 'failed' ORDER BY seq LIMIT $3`,
      [tenantId, importId, limit],
    );
    return rows.map((r) => ({ index: r.seq, filePath: r.file_path, status: 'failed', ...(r.error ? { error: r.error } : {}) }));
  }

  /** Deletes imports created before `before` (their items cascade); returns how many. */
  async purgeBefore(tenantId: TenantId, before: Date): Promise<number> {
    const rows = await this.ds.query<unknown[]>('DELETE FROM knowledge_import WHERE tenant_id = $1 AND created_at < $2 RETURNING id', [tenantId, before]);
    return rows.length;
  }
}
