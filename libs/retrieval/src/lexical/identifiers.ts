/**
 * Exact identifiers in a query (docs/retrieval.md "Exact identifiers"): alarm codes (`E201`), part and
 * model numbers (`RV-40E`, `TP-10`), commands (`apt-get`, `dpkg-reconfigure`) and versions (`2.3.1`).
 * A rare identifier that a document carries in its title, keywords or section heading is strong
 * evidence for that document; a document that only mentions it in its text, or carries it but shares
 * nothing else with the question, is not promoted. Pure: no Nest, no database.
 */

/** What a query token looks like to be an identifier, after NFKC (full-width `Ｅ２０１` is `E201`). */
const TOKEN = /`[^`\s]{2,64}`|[A-Za-z0-9](?:[A-Za-z0-9._/-]*[A-Za-z0-9])?/g;

export type IdentifierKind = 'code' | 'version' | 'command';

export interface QueryIdentifier {
  /** As written (backticks removed), lower case. */
  text: string;
  /** Letters and digits only: `rv-40e`, `RV40E` and `rv_40e` are one identifier. */
  compact: string;
  kind: IdentifierKind;
}

const compactOf = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');

/** The identifiers of `text`, in order of appearance, each once. */
export function extractIdentifiers(text: string): QueryIdentifier[] {
  const out = new Map<string, QueryIdentifier>();
  for (const match of text.normalize('NFKC').matchAll(TOKEN)) {
    const quoted = match[0].startsWith('`');
    const raw = quoted ? match[0].slice(1, -1) : match[0];
    const kind = identifierKind(raw, quoted);
    if (!kind) continue;
    const compact = compactOf(raw);
    if (compact.length < 2 || out.has(compact)) continue;
    out.set(compact, { text: raw.toLowerCase(), compact, kind });
  }
  return [...out.values()];
}

function identifierKind(raw: string, quoted: boolean): IdentifierKind | null {
  const letters = /[A-Za-z]/.test(raw);
  const digits = /\d/.test(raw);
  // 2.3.1, v2.3 — a dot between digits; a plain number (18, 2024) is not an identifier.
  if (/^v?\d+(\.\d+)+$/i.test(raw)) return 'version';
  if (letters && digits) return 'code';
  // apt-get, dpkg-reconfigure, update_grub, or anything the user put in backticks.
  if (quoted) return 'command';
  if (letters && /^[a-z][a-z0-9]*(?:[-_][a-z0-9]+)+$/.test(raw)) return 'command';
  return null;
}

/** Where a document carries an identifier. */
export type IdentifierPlace = 'heading' | 'text' | 'none';

/** Fields of a candidate the rule reads. */
export interface IdentifierFields {
  title: string;
  keywords?: readonly string[] | null;
  section?: readonly string[] | null;
  content: string;
}

function carries(field: string, id: QueryIdentifier): boolean {
  for (const match of field.normalize('NFKC').matchAll(TOKEN)) {
    const raw = match[0].startsWith('`') ? match[0].slice(1, -1) : match[0];
    if (compactOf(raw) === id.compact) return true;
  }
  return false;
}

/** Where `fields` carry `id`: title, keywords or section path (heading), only the text, or nowhere. */
export function identifierPlace(fields: IdentifierFields, id: QueryIdentifier): IdentifierPlace {
  const heading = [fields.title, ...(fields.keywords ?? []), ...(fields.section ?? [])];
  if (heading.some((f) => carries(f, id))) return 'heading';
  return carries(fields.content, id) ? 'text' : 'none';
}

/**
 * A document frequency is rare when at most this many chunks, or this share of the tenant's chunks,
 * hold the term (whichever is larger): an alarm code lives in its own article and a few that cite it.
 */
export const RARE_MIN_CHUNKS = 3;
export const RARE_SHARE = 0.02;

export function isRare(documentFrequency: number, chunkCount: number): boolean {
  return documentFrequency > 0 && documentFrequency <= Math.max(RARE_MIN_CHUNKS, RARE_SHARE * chunkCount);
}

/** The document frequency behind a BM25 IDF (docs/retrieval.md "Lexical index": idf = ln(1 + (N − df + 0.5)/(df + 0.5))). */
export function documentFrequencyOf(idf: number, chunkCount: number): number {
  const r = Math.exp(idf) - 1;
  return Math.max(0, Math.round((chunkCount + 0.5 - 0.5 * r) / (r + 1)));
}

/**
 * How much of the rest of the question (IDF share) a candidate must cover: one that carries the
 * identifier in a heading is about it, so a quarter will do (`E310 报警了怎么恢复` — the article says 复位,
 * not 恢复); one that only mentions it in its text must cover half to keep its grade.
 */
export const MIN_REST_COVERAGE_HEADING = 0.25;
export const MIN_REST_COVERAGE = 0.5;

export type IdentifierVerdict = 'promote' | 'cap' | 'none';

/**
 * The rule, for one candidate of a query that names at least one rare identifier of the tenant:
 * - `promote`: the candidate carries a rare identifier in a heading (title, keyword, section) and the
 *   rest of the question is covered (IDF share ≥ {@link MIN_REST_COVERAGE_HEADING}, or the question is
 *   the identifier alone) — graded at least highly relevant, and PRECISE (an exact hit).
 * - `cap`: the candidate shares the identifier and (almost) nothing else — so it may not be graded
 *   highly relevant on that ground.
 * - `none`: the candidate does not carry the identifier, or only mentions it in its text while
 *   covering the rest of the question: the calibrated grade stands.
 */
export function identifierVerdict(input: { places: readonly IdentifierPlace[]; restCoverage: number; restHasTerms: boolean }): IdentifierVerdict {
  if (!input.places.length || input.places.every((p) => p === 'none')) return 'none';
  const covers = (share: number) => !input.restHasTerms || input.restCoverage >= share;
  if (input.places.includes('heading')) return covers(MIN_REST_COVERAGE_HEADING) ? 'promote' : 'cap';
  return covers(MIN_REST_COVERAGE) ? 'none' : 'cap';
}

/** Probability after the rule: promoted to at least the highly-relevant cut, capped just below it. */
export function applyIdentifierVerdict(probability: number, verdict: IdentifierVerdict, highlyRelevantCut: number): number {
  if (verdict === 'promote') return Math.max(probability, highlyRelevantCut);
  if (verdict === 'cap') return Math.min(probability, Math.max(0, highlyRelevantCut - 1e-3));
  return probability;
}
