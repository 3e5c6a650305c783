import { candidateMemoryKey, type LookupResultItem } from '@arbiter/retrieval';
import type { SessionReference } from '@arbiter/sessions';

/** The fields of a lookup result a carried reference needs. */
export type WithheldDocument = Pick<LookupResultItem, 'documentId' | 'filePath' | 'title' | 'similarity'> &
  Partial<Pick<LookupResultItem, 'fileName' | 'page' | 'pageEnd' | 'section'>>;

/**
 * The references an "already provided" reply carries onto its session (docs/spec/coverage.md: coverage reads
 * the session's references): the documents it points back to — those the action memory withheld
 * because an earlier turn of the conversation already cited them — with the reference that earlier
 * turn stored (its score), else this lookup's own similarity. The reply quotes nothing new, but the
 * knowledge base did cover the question, so coverage must not count the turn as a knowledge gap.
 * Strongest first, each document once.
 */
export function carriedReferences(
  withheld: readonly WithheldDocument[],
  earlier: ReadonlyMap<string, SessionReference>,
): (SessionReference & { filePath: string })[] {
  const out = new Map<string, SessionReference & { filePath: string }>();
  for (const doc of withheld) {
    const key = candidateMemoryKey({ ...doc, source: 'L1', domain: '' });
    if (out.has(key)) continue;
    const prior = earlier.get(key);
    out.set(key, {
      documentId: prior?.documentId ?? doc.documentId,
      filePath: doc.filePath,
      title: prior?.title ?? doc.title,
      score: Math.round((prior?.score ?? doc.similarity) * 10000) / 10000,
      ...(doc.fileName ? { fileName: doc.fileName, page: doc.page ?? null, pageEnd: doc.pageEnd ?? null, section: doc.section ?? null } : {}),
    });
  }
  return [...out.values()].sort((a, b) => b.score - a.score);
}
