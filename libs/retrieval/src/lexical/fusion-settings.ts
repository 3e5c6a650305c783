/**
 * Per-tenant fusion weights (`PUT /admin/knowledge/settings`, docs/retrieval.md "Fusion").
 * Pure: no Nest, no database.
 */
export interface FusionSettings {
  /** Weight of the BM25 ranking in reciprocal rank fusion. */
  lexicalWeight: number;
  /** Weight of the vector ranking. */
  vectorWeight: number;
  /** Weight of the exact title/keyword (L0) hits, a third ranking. */
  exactWeight: number;
  /** RRF's rank offset k. */
  rrfK: number;
}

export const DEFAULT_FUSION: Readonly<FusionSettings> = Object.freeze({ lexicalWeight: 1, vectorWeight: 1, exactWeight: 0.5, rrfK: 60 });

export const FUSION_RANGES: Record<keyof FusionSettings, [number, number]> = {
  lexicalWeight: [0, 10],
  vectorWeight: [0, 10],
  exactWeight: [0, 10],
  rrfK: [0, 1000],
};

/** Merges a stored override onto the defaults, ignoring values out of range (they were validated on write). */
export function effectiveFusion(stored: Partial<Record<keyof FusionSettings, unknown>> | null | undefined): FusionSettings {
  const out: FusionSettings = { ...DEFAULT_FUSION };
  for (const key of Object.keys(DEFAULT_FUSION) as (keyof FusionSettings)[]) {
    const v = stored?.[key];
    const [lo, hi] = FUSION_RANGES[key];
    if (typeof v === 'number' && Number.isFinite(v) && v >= lo && v <= hi) out[key] = v;
  }
  if (out.lexicalWeight + out.vectorWeight + out.exactWeight === 0) return { ...DEFAULT_FUSION };
  return out;
}
