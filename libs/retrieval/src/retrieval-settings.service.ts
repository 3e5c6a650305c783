import { Inject, Injectable } from '@nestjs/common';
import { EMBEDDING_PROVIDER, type EmbeddingProvider } from '@arbiter/llm';
import { type Calibration, storedCalibration } from './lexical/calibration.js';
import { DEFAULT_CALIBRATION } from './lexical/default-calibration.js';
import { DEFAULT_FUSION, effectiveFusion, type FusionSettings } from './lexical/fusion-settings.js';
import type { TenantId } from '@arbiter/common';
import type { Db } from '@arbiter/database';
import { validateChunkerOptions } from './chunker.js';
import type { RetrievalSettingsDto } from './dto/knowledge.dto.js';
import { DEFAULT_RETRIEVAL_NORMALIZATION, type RetrievalNormalizationConfig, validateNormalizationConfig } from './relevance.js';
import { AuditLog } from '@arbiter/tenancy';
import { RetrievalErrorCode, RetrievalException } from './retrieval.exception.js';
import { RetrievalSettingsRepository, type StoredRetrievalSettings } from './retrieval-settings.repository.js';
import { checkMetadataFilter, type MetadataFilter } from './metadata-filter.js';

/** The effective retrieval settings of a tenant (defaults merged with its override). */
export interface EffectiveRetrievalSettings {
  normalization: RetrievalNormalizationConfig;
  fusion: FusionSettings;
  /** The tenant's fitted grade calibration for the current embedder, else the built-in one. */
  calibration: Calibration;
  calibrationSource: 'default' | 'fitted';
  /** The stored fit (calibration, fit time, metrics); `{}` when none. */
  grading: Record<string, unknown>;
  /** The chat's default metadata filter of lookups (docs/retrieval.md "Metadata filters"); `{}` for none. */
  defaultFilter: MetadataFilter;
  memoryTtlSeconds: number;
  chunkSize: number;
  chunkOverlap: number;
}

/** The settings an operator sets (the grade fit has its own entry), before and after, of those that changed. */
export function settingsChange(
  before: StoredRetrievalSettings,
  after: StoredRetrievalSettings,
): { before: Record<string, unknown>; after: Record<string, unknown> } {
  const keys = ['normalization', 'fusion', 'defaultFilter', 'memoryTtlSeconds', 'chunkSize', 'chunkOverlap'] as const;
  const changed = keys.filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
  return { before: Object.fromEntries(changed.map((k) => [k, before[k]])), after: Object.fromEntries(changed.map((k) => [k, after[k]])) };
}

@Injectable()
export class RetrievalSettingsService {
  constructor(
    private readonly repository: RetrievalSettingsRepository,
    @Inject(EMBEDDING_PROVIDER) private readonly provider: EmbeddingProvider,
    private readonly audit: AuditLog,
  ) {}

  /** `tx`: read inside the caller's transaction (lookups). */
  async get(tenantId: TenantId, tx?: Db): Promise<EffectiveRetrievalSettings> {
    return this.effective(await this.repository.get(tenantId, tx));
  }

  /** The effective settings of stored ones (read by the caller, e.g. with the session memory in one statement). */
  effective(stored: StoredRetrievalSettings): EffectiveRetrievalSettings {
    const merged = validateNormalizationConfig(stored.normalization);
    const fitted = storedCalibration(stored.grading, this.provider.id);
    const defaultFilter = checkMetadataFilter(stored.defaultFilter, 'defaultFilter');
    return {
      normalization: merged.ok ? merged.value : { ...DEFAULT_RETRIEVAL_NORMALIZATION },
      fusion: effectiveFusion(stored.fusion),
      calibration: fitted ?? DEFAULT_CALIBRATION,
      calibrationSource: fitted ? 'fitted' : 'default',
      grading: stored.grading,
      defaultFilter: defaultFilter.ok ? defaultFilter.filter : {},
      memoryTtlSeconds: stored.memoryTtlSeconds,
      chunkSize: stored.chunkSize,
      chunkOverlap: stored.chunkOverlap,
    };
  }

  /** Merges a partial override onto the tenant's settings; 400 naming the fields when invalid. */
  async update(tenantId: TenantId, patch: RetrievalSettingsDto): Promise<EffectiveRetrievalSettings> {
    const stored = await this.repository.get(tenantId);
    const normalizationPatch: Partial<RetrievalNormalizationConfig> = {};
    if (patch.maxL2Distance !== undefined) normalizationPatch.maxL2Distance = patch.maxL2Distance;
    if (patch.highlyRelevantThreshold !== undefined) normalizationPatch.highlyRelevantThreshold = patch.highlyRelevantThreshold;
    if (patch.referenceThreshold !== undefined) normalizationPatch.referenceThreshold = patch.referenceThreshold;
    const normalization = { ...stored.normalization, ...normalizationPatch };
    const checked = validateNormalizationConfig(normalization);
    if (!checked.ok) {
      throw new RetrievalException(RetrievalErrorCode.INVALID_RETRIEVAL_CONFIG, checked.errors.map((e) => e.message).join('; '), {
        fields: checked.errors.map((e) => e.field),
        errors: checked.errors,
      });
    }
    const chunkSize = patch.chunkSize ?? stored.chunkSize;
    const chunkOverlap = patch.chunkOverlap ?? stored.chunkOverlap;
    try {
      validateChunkerOptions({ chunkSize, overlap: chunkOverlap });
      if (chunkOverlap >= chunkSize) throw new RangeError('chunkOverlap must be smaller than chunkSize');
    } catch (error) {
      throw new RetrievalException(RetrievalErrorCode.INVALID_RETRIEVAL_CONFIG, (error as Error).message, { fields: ['chunkOverlap'] });
    }
    let defaultFilter = stored.defaultFilter;
    if (patch.defaultFilter !== undefined) {
      const checked = checkMetadataFilter(patch.defaultFilter, 'defaultFilter');
      if (!checked.ok)
        throw new RetrievalException(RetrievalErrorCode.INVALID_RETRIEVAL_CONFIG, checked.problems.map((p) => `${p.field}: ${p.message}`).join('; '), {
          fields: checked.problems.map((p) => p.field),
          errors: checked.problems,
        });
      defaultFilter = { ...checked.filter };
    }
    const fusion = { ...stored.fusion };
    for (const key of Object.keys(DEFAULT_FUSION) as (keyof FusionSettings)[]) if (patch[key] !== undefined) fusion[key] = patch[key];
    const next: StoredRetrievalSettings = {
      ...stored,
      normalization,
      fusion,
      defaultFilter,
      memoryTtlSeconds: patch.memoryTtlSeconds ?? stored.memoryTtlSeconds,
      chunkSize,
      chunkOverlap,
    };
    await this.repository.put(tenantId, next, (tx) =>
      this.audit.record(tx, tenantId, {
        action: 'update',
        resourceType: 'retrieval_settings',
        label: 'retrieval settings',
        summary: settingsChange(stored, next),
      }),
    );
    return this.get(tenantId);
  }
}
