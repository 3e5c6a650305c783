/** A chunk of a lexical list with its exact distance to that list's query vector (null: no vector in the space). */
export interface DistancedChunk {
  documentId: string;
  /** The document's file path, unique in its tenant: what ties are ordered by (ids are random). */
  filePath: string;
  chunkIndex: number;
  distance: number | null;
}

/**
 * The vector list of a tenant whose space has no ANN search (the hashing embedder's, docs/hot-paths.md "No ANN
 * search in the hashing embedder's space"): the lexical lists' chunks ranked by their exact distance, each chunk once
 * at its nearest (a chunk in both the own and the translated list keeps the smaller of its two distances), ties by
 * file path and chunk so the order never depends on the lists' order or the random document ids, at most `limit`.
 */
export function rankByDistance<T extends DistancedChunk>(lists: readonly (readonly T[])[], limit: number): (T & { distance: number })[] {
  const nearest = new Map<string, T & { distance: number }>();
  for (const list of lists)
    for (const hit of list) {
      if (hit.distance === null) continue;
      const key = `${hit.documentId}\u0000${hit.chunkIndex}`;
      const known = nearest.get(key);
      if (!known || hit.distance < known.distance) nearest.set(key, hit as T & { distance: number });
    }
  return [...nearest.values()]
    .sort((a, b) => a.distance - b.distance || (a.filePath < b.filePath ? -1 : a.filePath > b.filePath ? 1 : 0) || a.chunkIndex - b.chunkIndex)
    .slice(0, Math.max(0, limit));
}
