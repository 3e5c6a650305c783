/**
 * Weighted reciprocal rank fusion (Cormack et al. 2009) of the lexical and vector rankings
 * (docs/retrieval.md "Fusion"): score(d) = Σ_lists w · 1/(k + rank(d)), ranks from 1. RRF needs no
 * score calibration between lists, which is why it fuses a BM25 score with an L2 distance.
 * Ties keep the order of first appearance (lists in the order given). Pure: no Nest, no database.
 */
export interface RankedList {
  name: string;
  weight: number;
  /** Item ids, best first; repeats after the first occurrence are ignored. */
  ids: readonly string[];
}

export interface FusedItem {
  id: string;
  score: number;
  /** 1-based rank of the item in each list it appears in. */
  ranks: Record<string, number>;
}

export const DEFAULT_RRF_K = 60;

export function reciprocalRankFusion(lists: readonly RankedList[], k: number = DEFAULT_RRF_K): FusedItem[] {
  if (!(k >= 0)) throw new RangeError(`rrf k must be >= 0, got ${k}`);
  const byId = new Map<string, FusedItem & { order: number }>();
  let order = 0;
  for (const list of lists) {
    const seen = new Set<string>();
    let rank = 0;
    for (const id of list.ids) {
      if (seen.has(id)) continue;
      seen.add(id);
      rank++;
      let item = byId.get(id);
      if (!item) {
        item = { id, score: 0, ranks: {}, order: order++ };
        byId.set(id, item);
      }
      item.ranks[list.name] = rank;
      item.score += list.weight / (k + rank);
    }
  }
  return [...byId.values()].sort((a, b) => b.score - a.score || a.order - b.order).map(({ id, score, ranks }) => ({ id, score, ranks }));
}
