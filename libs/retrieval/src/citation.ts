/**
 * How a result's location reads in an answer (docs/retrieval.md "Sections of files"): "Manual.pdf, p. 48,
 * § 1.4.7 Setting a default editor". Pure: no Nest, no database.
 */
export interface LocatedResult {
  filePath: string;
  fileName?: string | null;
  page?: number | null;
  pageEnd?: number | null;
  section?: readonly string[] | null;
}

/** The file (or file path of a JSON document), then the pages and the innermost heading where known. */
export function describeLocation(r: LocatedResult): string {
  const parts = [r.fileName ?? r.filePath];
  if (r.page) parts.push(r.pageEnd && r.pageEnd !== r.page ? `pp. ${r.page}–${r.pageEnd}` : `p. ${r.page}`);
  const heading = r.section?.length ? r.section[r.section.length - 1] : null;
  if (heading) parts.push(`§ ${heading}`);
  return parts.join(', ');
}
