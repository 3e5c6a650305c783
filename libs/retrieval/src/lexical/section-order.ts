import type { IdentifierVerdict } from './identifiers.js';

/**
 * The order of a file's sections in the built-in embedder's space (docs/retrieval.md "Sections of files").
 * Pure: no Nest, no database.
 *
 * The hashing embedder's vectors are hashed words, and a section's chunk is long: its nearest chunks are
 * mostly those sharing common words with the question, and on the manual questions the dev sets ask they
 * found the answer far less often than the BM25 list (top 3: 37.5 / 42.5 % against 77.5 / 75.0 %, en / zh).
 * The ranking model, fitted on FAQ sets where a vector's first place means more, put such sections in the
 * second and third places. So among sections the order is their lexical evidence; the slots sections hold
 * among JSON documents (and FAQ rows) stay where the ranking model put them.
 */
export interface SectionOrderCandidate {
  fileName: string | null;
  page: number | null;
  section: readonly string[] | null;
  identifier: IdentifierVerdict;
  evidence: { lexicalShare: number };
}

/** A part of a long document made from a file (a section, or a PDF's pages before the first heading), not an FAQ row. */
export function isFileSection(c: Pick<SectionOrderCandidate, 'fileName' | 'page' | 'section'>): boolean {
  return c.fileName !== null && ((c.section?.length ?? 0) > 0 || c.page !== null);
}

/**
 * `ordered` with the slots its file sections hold refilled by the same sections ordered by: a rare identifier
 * promoted in their heading first (docs/retrieval.md "Exact identifiers"), then lexical share (the better of the
 * query's own terms and their translations), then their order in `ordered`.
 */
export function orderSectionsByLexicalEvidence<T extends SectionOrderCandidate>(ordered: readonly T[]): T[] {
  const sections = ordered
    .map((c, i) => ({ c, i }))
    .filter(({ c }) => isFileSection(c))
    .sort(
      (a, b) =>
        Number(b.c.identifier === 'promote') - Number(a.c.identifier === 'promote') || b.c.evidence.lexicalShare - a.c.evidence.lexicalShare || a.i - b.i,
    )
    .map(({ c }) => c);
  let next = 0;
  return ordered.map((c) => (isFileSection(c) ? (sections[next++] as T) : c));
}
