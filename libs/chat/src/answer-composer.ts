/**
 * Offline (no LLM) extractive answer: the best document's chunk, then the sentences of the other
 * selected chunks that share the most terms with the question, followed by the sources.
 * Pure logic: no Nest, no database.
 */
import type { ChatLanguage } from './chat-language.js';
import { answerIntroText, caveatText, sourcesBlock, type CaveatReason, type SourceLine } from './chat-texts.js';

export interface ComposerChunk {
  documentId?: string;
  filePath: string;
  title: string;
  /** The document's best-matching chunk. */
  content: string;
  similarity: number;
  source?: 'L0' | 'L1';
  /** Where the chunk came from, for a document made from a file (docs/retrieval.md "Sections of files"). */
  fileName?: string | null;
  page?: number | null;
  pageEnd?: number | null;
  section?: readonly string[] | null;
}

export interface ComposeOptions {
  /** Documents used at most (default 3). */
  maxSources?: number;
  /** Characters quoted: the first document's chunk up to 700, the most relevant sentences of the others up to 160. */
  firstBudget?: number;
  otherBudget?: number;
  /** Without exact (L0) hits, further documents are used only within this similarity of the best one (default 0.03). */
  similarityWindow?: number;
  /** Prefix the answer with the caveat naming this reason. */
  caveat?: CaveatReason;
}

export interface ComposedAnswer {
  text: string;
  used: ComposerChunk[];
}

const SENTENCE = /[^。！？!?；;\n]+[。！？!?；;]?|[^\n]+/g;
const HAN_RUN = /\p{Script=Han}+/gu;
const WORD = /[a-z0-9][a-z0-9_-]*/g;

/** Query terms: Latin words/codes (lower-cased, 2+ chars) and Chinese character bigrams. */
export function queryTerms(text: string): Set<string> {
  const lower = text.toLowerCase();
  const terms = new Set<string>();
  for (const w of lower.match(WORD) ?? []) if (w.length >= 2) terms.add(w);
  for (const run of lower.match(HAN_RUN) ?? []) {
    if (run.length === 1) terms.add(run);
    for (let i = 0; i + 1 < run.length; i++) terms.add(run.slice(i, i + 2));
  }
  return terms;
}

export function splitSentences(text: string): string[] {
  // A sentence-ending "." only when followed by a space or the end (keeps "v2.3.1" and "1.5 mm" whole).
  const normalized = text.replace(/\r/g, '').replace(/\.(\s+|$)/g, '.\n');
  return (normalized.match(SENTENCE) ?? []).map((s) => s.trim()).filter((s) => s.length > 0);
}

function score(sentence: string, terms: ReadonlySet<string>): number {
  if (!terms.size) return 0;
  const own = queryTerms(sentence);
  let hits = 0;
  for (const t of own) if (terms.has(t)) hits++;
  return hits;
}

/**
 * The most query-relevant sentences of `content` within `budget` characters, kept in document order.
 * Without any overlap the leading sentences are used (a chunk's opening usually states its subject).
 */
export function extractSentences(content: string, query: string, budget: number): string {
  const sentences = splitSentences(content).filter((s) => !/^#+\s*$/.test(s));
  if (!sentences.length) return '';
  const terms = queryTerms(query);
  const ranked = sentences.map((s, i) => ({ s: s.replace(/^#+\s*/, ''), i, score: score(s, terms) })).sort((a, b) => b.score - a.score || a.i - b.i);
  const picked: { s: string; i: number }[] = [];
  let used = 0;
  for (const r of ranked) {
    if (r.score === 0 && picked.length) break;
    if (used + r.s.length > budget && picked.length) continue;
    picked.push(r);
    used += r.s.length;
    if (used >= budget) break;
  }
  if (!picked.some((p) => p.i === 0) && ranked.every((r) => r.score === 0)) picked.splice(0, picked.length, { s: ranked[0]!.s, i: 0 });
  const text = picked
    .sort((a, b) => a.i - b.i)
    .map((p) => p.s)
    .join(' ');
  return text.length > budget * 1.5 ? `${text.slice(0, Math.floor(budget * 1.5))}…` : text;
}

/**
 * Picks the documents worth quoting. With exact (L0) hits, only those: vector neighbours of an exact
 * hit are padding, not answers. Otherwise the best vector result and the ones within
 * `similarityWindow` of it (the local embedder compresses similarities, so the window is narrow).
 */
export function selectChunks(results: readonly ComposerChunk[], maxSources = 3, similarityWindow = 0.03): ComposerChunk[] {
  const exact = results.filter((r) => r.source === 'L0');
  if (exact.length) return exact.slice(0, maxSources);
  if (!results.length) return [];
  const [best, ...rest] = results;
  const picked = [best!];
  for (const r of rest) {
    if (picked.length >= maxSources) break;
    if (r.similarity >= best!.similarity - similarityWindow) picked.push(r);
  }
  return picked;
}

/** The whole chunk (procedures keep every step), cut at a sentence end within `budget` characters. */
export function leadingText(content: string, budget: number): string {
  const sentences = splitSentences(content.replace(/^#+\s*[^\n]*\n/, ''));
  let out = '';
  for (const s of sentences) {
    if (out && out.length + s.length > budget) return `${out}…`;
    out = out ? `${out} ${s}` : s;
  }
  return out.length > budget * 1.5 ? `${out.slice(0, budget)}…` : out;
}

export function composeExtractiveAnswer(lang: ChatLanguage, query: string, results: readonly ComposerChunk[], options: ComposeOptions = {}): ComposedAnswer {
  const used = selectChunks(results, options.maxSources ?? 3, options.similarityWindow ?? 0.03);
  const parts: string[] = [];
  if (options.caveat) parts.push(caveatText(lang, options.caveat));
  parts.push(answerIntroText(lang));
  used.forEach((r, i) => {
    const excerpt = i === 0 ? leadingText(r.content, options.firstBudget ?? 700) : extractSentences(r.content, query, options.otherBudget ?? 160);
    parts.push(used.length > 1 ? `${i + 1}. 【${r.title}】${excerpt} [${i + 1}]` : `【${r.title}】${excerpt} [1]`);
  });
  const sources: SourceLine[] = used.map((r) => ({
    title: r.title,
    filePath: r.filePath,
    fileName: r.fileName,
    page: r.page,
    pageEnd: r.pageEnd,
    section: r.section,
  }));
  parts.push(sourcesBlock(lang, sources));
  return { text: parts.join('\n'), used };
}
