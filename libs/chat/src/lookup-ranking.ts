/**
 * Ranking the lookups of one chat turn and grading the documents they returned. Pure: no Nest, no
 * database. The agent may look up several times in one turn; the answer policy (docs/spec/evaluation.md §3) is
 * applied to the best lookup, and the reply cites every returned document once, strongest first.
 */
import { candidateMemoryKey, DEFAULT_RETRIEVAL_NORMALIZATION, type LookupResult, type LookupResultItem } from '@arbiter/retrieval';

/** What ranking needs of a lookup record (see `LookupRecord` in chat-turn.ts). */
export interface RankedLookup {
  result: Pick<LookupResult, 'relevanceLevel' | 'completenessHint' | 'confidence' | 'results'>;
  /** The lookup's results minus the documents already cited earlier in the conversation. */
  items: readonly LookupResultItem[];
  /** Results withheld because they were cited earlier in the conversation. */
  withheld: readonly LookupResultItem[];
}

const LEVEL_RANK: Record<string, number> = { PRECISE: 3, HIGHLY_RELEVANT: 2, REFERENCE: 1 };

/** Ranks lookups: with results first, then relevance level, PARTIAL over INSUFFICIENT, then confidence score. */
function lookupRank(rec: RankedLookup): number[] {
  const r = rec.result;
  return [rec.items.length > 0 ? 1 : 0, LEVEL_RANK[r.relevanceLevel] ?? 0, r.completenessHint === 'INSUFFICIENT' ? 0 : 1, r.confidence.score];
}

/** The best lookup of the turn (the first of equals); null when there is none. */
export function pickBestLookup<T extends RankedLookup>(records: readonly T[]): T | null {
  let best: T | null = null;
  for (const rec of records) {
    if (!best) {
      best = rec;
      continue;
    }
    const a = lookupRank(rec);
    const b = lookupRank(best);
    const i = a.findIndex((v, k) => v !== b[k]);
    if (i >= 0 && a[i]! > b[i]!) best = rec;
  }
  return best;
}

/**
 * Relevance level of one returned document from its calibrated relevance (docs/retrieval.md
 * "Grading"): the lookup's first result carries the lookup's own grade (graded with the tenant's
 * thresholds); the others are highly relevant (PRECISE when an exact hit) at the default threshold,
 * else REFERENCE — so the padding of a strong lookup is not shown as strong.
 */
export function itemLevel(
  item: Pick<LookupResultItem, 'documentId' | 'source' | 'relevance'>,
  lookup: Pick<LookupResult, 'relevanceLevel' | 'results'>,
): string {
  if (lookup.results[0]?.documentId === item.documentId && lookup.relevanceLevel !== 'REFERENCE') return lookup.relevanceLevel;
  if (item.relevance >= DEFAULT_RETRIEVAL_NORMALIZATION.highlyRelevantThreshold) return item.source === 'L0' ? 'PRECISE' : 'HIGHLY_RELEVANT';
  return 'REFERENCE';
}

export type GradedItem = LookupResultItem & { relevanceLevel: string };

/**
 * Every document (section of a file) the turn's lookups returned, each once (by action-memory key): the best lookup's first, then
 * the others' in turn order, each graded by its own lookup; and the documents withheld because the
 * conversation already cited them, each once.
 */
export function turnDocuments(records: readonly RankedLookup[], best: RankedLookup): { items: GradedItem[]; withheld: LookupResultItem[] } {
  const seen = new Set<string>();
  const items: GradedItem[] = [];
  for (const rec of [best, ...records.filter((x) => x !== best)]) {
    for (const item of rec.items) {
      const key = candidateMemoryKey(item);
      if (seen.has(key)) continue;
      seen.add(key);
      items.push({ ...item, relevanceLevel: itemLevel(item, rec.result) });
    }
  }
  const withheld = [...new Map(records.flatMap((x) => x.withheld).map((w) => [candidateMemoryKey(w), w])).values()];
  return { items, withheld };
}
