/**
 * Where a chunk or a lookup result sits in its file (docs/console.md "Knowledge"): its pages (PDF only) and its
 * section, the heading path outermost first. The API gives 1-based `page`/`pageEnd` (both null without pages) and
 * `section` (null without headings).
 */

/** The pages to show: one page, a range, or none. A `pageEnd` missing or before `page` shows the one page. */
export type PageSpan = { kind: 'none' } | { kind: 'page'; page: number } | { kind: 'range'; from: number; to: number };

const isPage = (value: number | null | undefined): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 1;

export function pageSpan(page: number | null | undefined, pageEnd: number | null | undefined): PageSpan {
  if (!isPage(page)) return { kind: 'none' };
  if (!isPage(pageEnd) || pageEnd <= page) return { kind: 'page', page };
  return { kind: 'range', from: page, to: pageEnd };
}

/** "1 Basics › 1.4 Editors"; null when there is no heading to show (blank headings are left out). */
export function sectionPath(section: readonly string[] | null | undefined): string | null {
  const headings = (section ?? []).map((heading) => heading.trim()).filter((heading) => heading.length > 0);
  return headings.length > 0 ? headings.join(' › ') : null;
}

interface Indexed {
  chunkIndex: number;
}

/**
 * The chunks shown after "load more": the loaded ones then the next page's, in document order, each index once
 * (a chunk edited meanwhile is not listed twice when a page is asked for again).
 */
export function appendChunks<T extends Indexed>(loaded: readonly T[], next: readonly T[]): T[] {
  const byIndex = new Map<number, T>();
  for (const chunk of [...loaded, ...next]) byIndex.set(chunk.chunkIndex, chunk);
  return [...byIndex.values()].sort((a, b) => a.chunkIndex - b.chunkIndex);
}

/** The list with one chunk replaced by the API's answer to its edit (the chunk as stored now). */
export function replaceChunk<T extends Indexed>(loaded: readonly T[], updated: T): T[] {
  return loaded.map((chunk) => (chunk.chunkIndex === updated.chunkIndex ? updated : chunk));
}
