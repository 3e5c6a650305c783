import { chineseSegmenter } from '@arbiter/common/segmenter';
import { stemmer } from 'stemmer';
import { CHINESE_STOP_WORDS, ENGLISH_STOP_WORDS } from './stop-words.js';

/**
 * The lexical analyzer of the knowledge base (docs/retrieval.md "Lexical index"): the same function
 * turns documents and queries into index terms, so a change here needs a re-index
 * (bump {@link LEXICAL_ANALYZER_VERSION}; documents carry the version they were indexed with).
 *
 * - Text is NFKC-normalized and lower-cased.
 * - Latin/digit tokens: Porter-stemmed (`resetting` → `reset`); alphanumeric codes such as `e201`
 *   are kept whole. English stop words are index terms too, unstemmed: BM25's IDF already makes
 *   `the` weigh next to nothing, while the frame of a short question (`where` can I get tested,
 *   `how` does it spread) is what tells two FAQ entries apart (docs/retrieval.md "Lexical index").
 *   Readers that want the content words only (the bilingual dictionary, the query's translation)
 *   ask for `englishStopWords: 'drop'`.
 * - Chinese runs: jieba's search-mode segmentation (a long word also yields its dictionary
 *   sub-words, so `示教器` matches `示教`), stop words dropped, plus character bigrams prefixed
 *   with `~` — paraphrases segment differently, bigrams still overlap (`不亮` / `亮了`).
 * Pure: no Nest, no database.
 */
export const LEXICAL_ANALYZER_VERSION = 3;

const CJK_RUN = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+/u;
const CJK_RUNS = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+/gu;
const TOKEN_RE = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+|[\p{L}\p{N}]+/gu;
/** Index terms longer than this are dropped (the column is varchar(64)); nobody searches for them. */
export const MAX_TERM_LENGTH = 64;
/** Marks a Chinese character bigram term (a word never starts with it: it is not a letter). */
export const CJK_BIGRAM_PREFIX = '~';

const segmenter = chineseSegmenter;

/**
 * Loads the segmenter's dictionary now (~200–500 ms of one thread): called at boot so that the first
 * import or lookup does not pay it on the request path while other requests wait.
 */
export function warmAnalyzer(): void {
  segmenter();
}

export interface AnalyzerOptions {
  /** Character bigrams of Chinese runs (default true). */
  cjkBigrams?: boolean;
  /** English stop words as terms (`keep`, the index's and the query's default) or not (`drop`). */
  englishStopWords?: 'keep' | 'drop';
}

/** The content words of a text: no English stop word (Chinese ones are never terms). */
export const CONTENT_WORDS: Readonly<AnalyzerOptions> = Object.freeze({ englishStopWords: 'drop' });

/** Whether an index term is an English stop word (they are kept unstemmed, so the term is the word). */
export function isStopWordTerm(term: string): boolean {
  return ENGLISH_STOP_WORDS.has(term);
}

/** Index terms of `text`, in order, with repeats (term frequency is their count). */
export function analyzeText(text: string, options: AnalyzerOptions = {}): string[] {
  const terms: string[] = [];
  const normalized = text.normalize('NFKC').toLowerCase();
  // One segmenter call per text (not per run): the native call dominates the cost of short runs.
  const hasCjk = CJK_RUN.test(normalized);
  const tokens = hasCjk ? segmenter().cutForSearch(normalized, true) : (normalized.match(TOKEN_RE) ?? []);
  for (const token of tokens) {
    if (CJK_RUN.test(token)) {
      if (!CHINESE_STOP_WORDS.has(token)) terms.push(token);
      continue;
    }
    for (const word of token.match(TOKEN_RE) ?? []) {
      if (ENGLISH_STOP_WORDS.has(word)) {
        if (options.englishStopWords !== 'drop') terms.push(word);
        continue;
      }
      terms.push(/\d/.test(word) ? word : stemmer(word));
    }
  }
  if (hasCjk && options.cjkBigrams !== false) {
    for (const run of normalized.match(CJK_RUNS) ?? []) for (let i = 0; i + 1 < run.length; i++) terms.push(`${CJK_BIGRAM_PREFIX}${run.slice(i, i + 2)}`);
  }
  return terms.filter((t) => t.length <= MAX_TERM_LENGTH);
}

/** Term → count. */
export function termFrequencies(terms: readonly string[], weight = 1, into: Map<string, number> = new Map()): Map<string, number> {
  for (const t of terms) into.set(t, (into.get(t) ?? 0) + weight);
  return into;
}

/** Distinct query terms with their repeat count. */
export function queryTerms(query: string): Map<string, number> {
  return termFrequencies(analyzeText(query));
}
