import { Injectable } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import { Database, type Db, type RawBuilder, sql, type Tx } from '@arbiter/database';
import type { RetrievalNormalizationConfig } from './relevance.js';

export interface StoredRetrievalSettings {
  normalization: Partial<RetrievalNormalizationConfig>;
  fusion: Record<string, unknown>;
  grading: Record<string, unknown>;
  /** The chat's default metadata filter (docs/retrieval.md "Metadata filters"); `{}` for none. */
  defaultFilter: Record<string, unknown>;
  memoryTtlSeconds: number;
  chunkSize: number;
  chunkOverlap: number;
}

export const DEFAULT_STORED_SETTINGS: Readonly<StoredRetrievalSettings> = Object.freeze({
  normalization: {},
  fusion: {},
  grading: {},
  defaultFilter: {},
  memoryTtlSeconds: 86_400,
  chunkSize: 512,
  chunkOverlap: 64,
});

/** The tenant's settings row, the columns {@link StoredSettingsRow} names. */
const settingsSelect = (tenantId: TenantId) =>
  sql<StoredSettingsRow>`SELECT normalization, fusion, grading, default_filter, memory_ttl_seconds, chunk_size, chunk_overlap FROM retrieval_settings WHERE tenant_id = ${tenantId}`;

export interface StoredSettingsRow {
  normalization: Partial<RetrievalNormalizationConfig>;
  fusion: Record<string, unknown>;
  grading: Record<string, unknown>;
  default_filter?: Record<string, unknown>;
  memory_ttl_seconds: number;
  chunk_size: number;
  chunk_overlap: number;
}

/**
 * The row `jsonSubquery` produced, read back from a caller's statement that carried it as json (null: the tenant
 * has no row). Anything else is a programming error — the subquery and this reader live here together.
 */
export function settingsRowFromJson(value: unknown): StoredSettingsRow | null {
  if (value === null || value === undefined) return null;
  const row = value as Partial<StoredSettingsRow>;
  if (typeof value !== 'object' || typeof row.memory_ttl_seconds !== 'number' || typeof row.chunk_size !== 'number' || typeof row.chunk_overlap !== 'number') {
    throw new TypeError('retrieval settings json: not a retrieval_settings row');
  }
  return value as StoredSettingsRow;
}

/** The stored settings of a row (`RetrievalSettingsRepository.get` or `jsonSubquery`); the defaults without one. */
export function storedSettings(r: StoredSettingsRow | null | undefined): StoredRetrievalSettings {
  return r
    ? {
        normalization: r.normalization,
        fusion: r.fusion,
        grading: r.grading,
        defaultFilter: r.default_filter ?? {},
        memoryTtlSeconds: r.memory_ttl_seconds,
        chunkSize: r.chunk_size,
        chunkOverlap: r.chunk_overlap,
      }
    : { ...DEFAULT_STORED_SETTINGS };
}

/** The tenant's retrieval settings (`retrieval_settings`). On the typed data layer (docs/data-layer.md). */
@Injectable()
export class RetrievalSettingsRepository {
  constructor(private readonly database: Database) {}

  /** `db`: read inside the caller's transaction. */
  async get(tenantId: TenantId, db: Db = this.database.db): Promise<StoredRetrievalSettings> {
    const { rows } = await settingsSelect(tenantId).execute(db);
    return storedSettings(rows[0]);
  }

  /** A scalar subquery of the tenant's settings row as json (null when none): for a statement that reads more than the settings. */
  jsonSubquery(tenantId: TenantId): RawBuilder<StoredSettingsRow | null> {
    return sql<StoredSettingsRow | null>`(SELECT row_to_json(r) FROM (${settingsSelect(tenantId)}) r)`;
  }

  /** Stores the settings in one transaction with `record`, the change's audit entry (docs/http-edge.md "Audit log"). */
  async put(tenantId: TenantId, s: StoredRetrievalSettings, record: (tx: Tx) => Promise<void>): Promise<void> {
    await this.database.transaction(async (tx) => {
      await this.write(tx, tenantId, s);
      await record(tx);
    });
  }

  private async write(tx: Tx, tenantId: TenantId, s: StoredRetrievalSettings): Promise<void> {
    await sql`INSERT INTO retrieval_settings (tenant_id, normalization, memory_ttl_seconds, chunk_size, chunk_overlap, fusion, grading, default_filter)
       VALUES (${tenantId}, ${JSON.stringify(s.normalization)}::jsonb, ${s.memoryTtlSeconds}, ${s.chunkSize}, ${s.chunkOverlap},
               ${JSON.stringify(s.fusion)}::jsonb, ${JSON.stringify(s.grading)}::jsonb, ${JSON.stringify(s.defaultFilter)}::jsonb)
       ON CONFLICT ON CONSTRAINT uq_retrieval_settings_tenant DO UPDATE SET
         normalization = EXCLUDED.normalization, fusion = EXCLUDED.fusion, grading = EXCLUDED.grading, default_filter = EXCLUDED.default_filter,
         memory_ttl_seconds = EXCLUDED.memory_ttl_seconds,
         chunk_size = EXCLUDED.chunk_size, chunk_overlap = EXCLUDED.chunk_overlap, updated_at = EXCLUDED.updated_at`.execute(tx);
  }
}
