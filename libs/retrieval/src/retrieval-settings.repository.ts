import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { TenantId } from '@arbiter/common';
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

const SETTINGS_SELECT = 'SELECT normalization, fusion, grading, default_filter, memory_ttl_seconds, chunk_size, chunk_overlap FROM retrieval_settings';

export interface StoredSettingsRow {
  normalization: Partial<RetrievalNormalizationConfig>;
  fusion: Record<string, unknown>;
  grading: Record<string, unknown>;
  default_filter?: Record<string, unknown>;
  memory_ttl_seconds: number;
  chunk_size: number;
  chunk_overlap: number;
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

@Injectable()
export class RetrievalSettingsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async get(tenantId: TenantId, db: DataSource | EntityManager = this.ds): Promise<StoredRetrievalSettings> {
    const rows: StoredSettingsRow[] = await db.query(`${SETTINGS_SELECT} WHERE tenant_id = $1`, [tenantId]);
    return storedSettings(rows[0]);
  }

  /** A scalar subquery of the tenant's settings row as json (null when none): for a statement that reads more than the settings. */
  jsonSubquery(tenantPlaceholder: string): string {
    return `(SELECT row_to_json(r) FROM (${SETTINGS_SELECT} WHERE tenant_id = ${tenantPlaceholder}) r)`;
  }

  /** Stores the settings in one transaction with `record`, the change's audit entry (docs/http-edge.md "Audit log"). */
  async put(tenantId: TenantId, s: StoredRetrievalSettings, record: (em: EntityManager) => Promise<void>): Promise<void> {
    await this.ds.transaction(async (em) => {
      await this.write(em, tenantId, s);
      await record(em);
    });
  }

  private async write(em: EntityManager, tenantId: TenantId, s: StoredRetrievalSettings): Promise<void> {
    await em.query(
      `INSERT INTO retrieval_settings (tenant_id, normalization, memory_ttl_seconds, chunk_size, chunk_overlap, fusion, grading, default_filter)
       VALUES ($1, $2::jsonb, $3, $4, $5, $6::jsonb, $7::jsonb, $8::jsonb)
       ON CONFLICT ON CONSTRAINT uq_retrieval_settings_tenant DO UPDATE SET
         normalization = EXCLUDED.normalization, fusion = EXCLUDED.fusion, grading = EXCLUDED.grading, default_filter = EXCLUDED.default_filter,
         memory_ttl_seconds = EXCLUDED.memory_ttl_seconds,
         chunk_size = EXCLUDED.chunk_size, chunk_overlap = EXCLUDED.chunk_overlap, updated_at = now()`,
      [
        tenantId,
        JSON.stringify(s.normalization),
        s.memoryTtlSeconds,
        s.chunkSize,
        s.chunkOverlap,
        JSON.stringify(s.fusion),
        JSON.stringify(s.grading),
        JSON.stringify(s.defaultFilter),
      ],
    );
  }
}
