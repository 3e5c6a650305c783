/** What `walkBatches` saw: the ids in the order the batch query returned them, and at each cursor the count and the rows still to come. */
export interface BatchWalk {
  ids: string[];
  /** The count query's answer at each cursor (the first is at `null`, the last after the final batch). */
  counts: number[];
  /** The rows the batch query returned after each of those cursors: what the counts must equal. */
  remaining: number[];
}

/**
 * Walks a job's keyset batch query to the end as the job does (the next cursor is the last id of a batch),
 * asking the job's count query at every cursor: a job total is right when `counts` equals `remaining`.
 */
export async function walkBatches(
  batch: (afterId: string | null) => Promise<readonly { id: string }[]>,
  count: (afterId: string | null) => Promise<number>,
): Promise<BatchWalk> {
  const ids: string[] = [];
  const counts: number[] = [];
  const before: number[] = [];
  let cursor: string | null = null;
  for (;;) {
    counts.push(await count(cursor));
    before.push(ids.length);
    const rows = await batch(cursor);
    if (!rows.length) break;
    ids.push(...rows.map((r) => r.id));
    cursor = rows[rows.length - 1]!.id;
  }
  return { ids, counts, remaining: before.map((b) => ids.length - b) };
}
