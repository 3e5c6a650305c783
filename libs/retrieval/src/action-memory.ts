/**
 * docs/spec/retrieval.md §4: the executor's per-session action memory (`session → domain → filePath`)
 * and the pure decision of what a lookup returns given that memory. No Nest, no database: the memory
 * itself is stored in PostgreSQL (`ActionMemoryRepository`: read, then the returned documents claimed
 * by `LookupService`; docs/hot-paths.md "Chat turn") and feeds this decision.
 */
import { createHash } from 'node:crypto';
import { isStrongRelevance, type RelevanceLevel } from './relevance.js';

export const DEDUP_REASONS = ['doc_retrieved', 'domain_retrieved'] as const;
export type DedupReason = (typeof DEDUP_REASONS)[number];

/** What one session has retrieved so far. */
export interface SessionMemoryState {
  /** The {@link memoryKey} of every document, or section of a file, returned in this session (any domain). */
  docs: ReadonlySet<string>;
  /** Domains in first-retrieved order → whether one of their documents was returned at a strong level. */
  domains: ReadonlyMap<string, { strong: boolean }>;
}

export const EMPTY_SESSION_MEMORY: SessionMemoryState = Object.freeze({ docs: new Set<string>(), domains: new Map<string, { strong: boolean }>() });

export interface RetrievalCandidate {
  filePath: string;
  domain: string;
  /** `L0`: exact title/keyword/domain hit; `L1`: vector search. */
  source: 'L0' | 'L1';
  /** The uploaded file's name for documents made from files (null/absent for JSON documents). */
  fileName?: string | null;
  /** The section's heading path of a file's candidate. */
  section?: readonly string[] | null;
}

/**
 * The memory's section key of a candidate (docs/retrieval.md "Sections of files"): '' for a JSON document
 * (the memory keys on its file path, as before) or a file's chunk without a heading; else the SHA-256 of the
 * section's heading path, so the memory keys on (file, section) and one answer does not use up a whole manual.
 */
export function sectionKey(c: Pick<RetrievalCandidate, 'fileName' | 'section'>): string {
  if (c.fileName === null || c.fileName === undefined || !c.section?.length) return '';
  return createHash('sha256').update(JSON.stringify(c.section), 'utf8').digest('hex');
}

/** One memory entry's key: the file path, and the section key when there is one. */
export function memoryKey(filePath: string, section: string): string {
  return section ? `${filePath}\u0000${section}` : filePath;
}

/** A candidate's memory key. */
export function candidateMemoryKey(c: RetrievalCandidate): string {
  return memoryKey(c.filePath, sectionKey(c));
}

export interface RetrievalDecisionInput<T extends RetrievalCandidate> {
  /**
   * One entry per document, best first: L0 hits first (in their order), then L1 results by similarity.
   * Candidates beyond `topK` are fallbacks that replace already-returned documents.
   */
  candidates: readonly T[];
  /** The lookup's level, computed before dedup (seed T4: grade, then filter). */
  relevanceLevel: RelevanceLevel;
  memory: SessionMemoryState;
  topK: number;
}

export interface MemoryMark {
  /** The lookup's domain (seed T4: `markRetrieved(sessionId, domain, docKey)`), not necessarily the document's own. */
  domain: string;
  filePath: string;
  /** {@link sectionKey}: '' for a whole document. */
  sectionKey: string;
  /** The lookup's relevance level; PRECISE/HIGHLY_RELEVANT make the domain "strongly" retrieved. */
  level: RelevanceLevel;
}

export interface RetrievalDecision<T extends RetrievalCandidate> {
  results: T[];
  dedupReason: DedupReason | null;
  /** First L0 match's domain, else the top L1 result's; null with no candidates. */
  domain: string | null;
  /** Domains retrieved in this session including this lookup's, in first-retrieved order. */
  retrievedDomainsThisSession: string[];
  /** What to record in the memory (exactly the returned documents). */
  marks: MemoryMark[];
}

/** First L0 match's domain, else the top L1 result's (seed T4). */
export function lookupDomain(candidates: readonly RetrievalCandidate[]): string | null {
  const l0 = candidates.find((c) => c.source === 'L0');
  if (l0) return l0.domain;
  const l1 = candidates.find((c) => c.source === 'L1');
  return l1 ? l1.domain : null;
}

/**
 * docs/spec/retrieval.md §4 in order:
 * 1. the lookup is only REFERENCE and its domain was already retrieved this session at
 *    PRECISE/HIGHLY_RELEVANT → nothing returned, `domain_retrieved`;
 * 2. otherwise documents (sections of files) already returned this session are dropped; candidates existed but none is
 *    new → nothing returned, `doc_retrieved`;
 * 3. otherwise the first `topK` new documents are returned (and marked), `dedupReason: null`.
 * A lookup with no candidate at all has `dedupReason: null` (its hint is INSUFFICIENT).
 */
export function decideRetrieval<T extends RetrievalCandidate>(input: RetrievalDecisionInput<T>): RetrievalDecision<T> {
  const { candidates, relevanceLevel, memory } = input;
  const topK = Math.max(0, Math.floor(input.topK));
  const domain = lookupDomain(candidates);
  const known = [...memory.domains.keys()];
  const withheld = (reason: DedupReason): RetrievalDecision<T> => ({ results: [], dedupReason: reason, domain, retrievedDomainsThisSession: known, marks: [] });

  if (relevanceLevel === 'REFERENCE' && domain !== null && memory.domains.get(domain)?.strong === true) {
    return withheld('domain_retrieved');
  }
  const seen = new Set<string>();
  const fresh: T[] = [];
  for (const c of candidates) {
    const key = candidateMemoryKey(c);
    if (seen.has(key)) continue;
    seen.add(key);
    if (!memory.docs.has(key)) fresh.push(c);
  }
  if (candidates.length > 0 && fresh.length === 0) return withheld('doc_retrieved');

  const results = fresh.slice(0, topK);
  // docs/spec/retrieval.md §4: every returned document is recorded under the lookup's domain, at the lookup's level.
  const marks = domain === null ? [] : results.map((r) => ({ domain, filePath: r.filePath, sectionKey: sectionKey(r), level: relevanceLevel }));
  const domains = marks.length && !known.includes(domain as string) ? [...known, domain as string] : known;
  return { results, dedupReason: null, domain, retrievedDomainsThisSession: domains, marks };
}

/** Applies marks to a state (what the persisted memory does in SQL); returns a new state. */
export function applyMarks(state: SessionMemoryState, marks: readonly MemoryMark[]): SessionMemoryState {
  const docs = new Set(state.docs);
  const domains = new Map(state.domains);
  for (const m of marks) {
    docs.add(memoryKey(m.filePath, m.sectionKey));
    const strong = isStrongRelevance(m.level);
    const prev = domains.get(m.domain);
    domains.set(m.domain, { strong: (prev?.strong ?? false) || strong });
  }
  return { docs, domains };
}
