/**
 * Which candidate a labelled question names (docs/retrieval.md "Fitting the grade"). Pure: no Nest, no database.
 *
 * A label names the document that answers (`filePath`); for a document made from a file it also names where: the
 * pages that answer (`pages`, 1-based, any of them) and/or the section (`section`, a heading path: the candidate's
 * path starts with it). A manual is one document of many sections, each its own candidate ("Sections of files"):
 * labelled by its path alone every section of it would count as the right answer to every question about it.
 */
export interface AnswerLabel {
  filePath: string;
  pages?: readonly number[];
  section?: readonly string[];
}

export interface LabelledCandidateLocation {
  filePath: string;
  page: number | null;
  pageEnd: number | null;
  section: readonly string[] | null;
}

const normalizeHeading = (h: string) => h.normalize('NFKC').replace(/\s+/gu, ' ').trim();

/** The page range `page..pageEnd` (`pageEnd` defaults to `page`; no page: no range) shares a page with `pages`. */
export function pageRangeMeets(page: number | null, pageEnd: number | null, pages: readonly number[]): boolean {
  if (page === null) return false;
  const last = pageEnd ?? page;
  return pages.some((p) => p >= page && p <= last);
}

/** The candidate is the answer the label names: its document, and where the label says, its pages and section. */
export function answersLabel(candidate: LabelledCandidateLocation, label: AnswerLabel): boolean {
  if (candidate.filePath !== label.filePath) return false;
  if (label.pages?.length && !pageRangeMeets(candidate.page, candidate.pageEnd, label.pages)) return false;
  if (label.section?.length) {
    const path = candidate.section ?? [];
    if (path.length < label.section.length) return false;
    if (!label.section.every((h, i) => normalizeHeading(h) === normalizeHeading(path[i] as string))) return false;
  }
  return true;
}

/** The label says where in its document the answer is. */
export function labelsLocation(label: Pick<AnswerLabel, 'pages' | 'section'>): boolean {
  return (label.pages?.length ?? 0) > 0 || (label.section?.length ?? 0) > 0;
}
