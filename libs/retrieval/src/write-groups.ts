/**
 * Chunks per transaction of a write or a removal in groups: ~70 postings a chunk of a manual, so a group holds the
 * embedded database's backend for a few hundred milliseconds (docs/hot-paths.md "A large file's write in groups").
 */
export const GROUP_WRITE_CHUNKS = 100;

/** Chunks `first … first + count - 1` of document `doc` (an index into the write's documents). */
export interface WriteSegment {
  doc: number;
  first: number;
  count: number;
}

/**
 * The transactions of a write in groups (docs/hot-paths.md "A large file's write in groups"): the documents' chunks in
 * order, cut into groups of at most `limit` chunks; a group may end one document and start the next (a sheet's rows
 * are small documents). `chunkCounts`: the chunks of each document. No database access.
 */
export function writeGroups(chunkCounts: readonly number[], limit: number): WriteSegment[][] {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer, got ${limit}`);
  const groups: WriteSegment[][] = [];
  let group: WriteSegment[] = [];
  let room = limit;
  chunkCounts.forEach((total, doc) => {
    let first = 0;
    while (first < total) {
      const count = Math.min(room, total - first);
      group.push({ doc, first, count });
      first += count;
      room -= count;
      if (room === 0) {
        groups.push(group);
        group = [];
        room = limit;
      }
    }
  });
  if (group.length) groups.push(group);
  return groups;
}
