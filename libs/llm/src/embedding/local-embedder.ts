import { chineseSegmenter } from '@arbiter/common/segmenter';

/**
 * The built-in embedder: no weights, no network, deterministic.
 *
 * Features (text NFKC-normalized and lower-cased):
 * - words: Latin/digit tokens and Chinese words from jieba, as unigrams and adjacent bigrams;
 * - character 3-grams of each Latin word (with `<`/`>` boundary marks), for morphology and typos;
 * - CJK character unigrams and bigrams (robust where jieba segments differently);
 * - for text with no letters/digits at all (e.g. "?!" or emoji), its non-space characters.
 * Each feature's weight is `groupWeight · (1 + ln tf)` (sublinear TF), added with a hashed sign
 * to a hashed bucket of a dense `dimension`-vector, which is then L2-normalized.
 *
 * Empty or whitespace-only text has no direction: it throws {@link EmptyEmbeddingTextError}
 * (callers validate input first; a made-up vector would silently match unrelated text).
 *
 * Bump {@link LOCAL_EMBEDDER_VERSION} whenever a change would alter any vector: the provider id
 * (`local:<version>:<dimension>`) is how stored vectors know they must be re-embedded.
 */
export const LOCAL_EMBEDDER_VERSION = 'hash-v2';

export class EmptyEmbeddingTextError extends Error {
  readonly code = 'EMBEDDING_EMPTY_TEXT';
  constructor(readonly index?: number) {
    super(index === undefined ? 'cannot embed empty or whitespace-only text' : `cannot embed empty or whitespace-only text (input #${index})`);
    this.name = 'EmptyEmbeddingTextError';
  }
}

const CJK_CHAR = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]/;
/** Runs of CJK characters, or runs of letters/digits. */
const TOKEN_RE = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]+|[\p{L}\p{N}]+/gu;

const Ns = { Word: 1, WordBigram: 2, Char3: 3, CjkChar: 4, CjkBigram: 5, Symbol: 6 } as const;
type Ns = (typeof Ns)[keyof typeof Ns];

const GROUP_WEIGHT: Record<Ns, number> = {
  [Ns.Word]: 1,
  [Ns.WordBigram]: 0.6,
  [Ns.Char3]: 0.35,
  [Ns.CjkChar]: 0.45,
  [Ns.CjkBigram]: 0.6,
  [Ns.Symbol]: 1,
};

/** FNV-1a 32-bit seeded by a namespace, with a murmur3 finalizer so every bit is mixed. */
function hash32(text: string, seed: number): number {
  let h = (0x811c9dc5 ^ Math.imul(seed, 0x9e3779b1)) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** jieba, loaded on the first Chinese text (~200 ms), then shared with the other analyzers. */
const segmenter = chineseSegmenter;

export interface LocalEmbedderOptions {
  /** Output dimension (default 384, at least 8). */
  dimension?: number;
}

/** The id prefix of the built-in embedder's spaces (`local:<version>:<dimension>`). */
const LOCAL_ID_PREFIX = 'local:';

/** Whether a provider id names the built-in hashing embedder's space (its vectors are hashed features, not meaning). */
export function isHashingEmbedding(providerId: string): boolean {
  return providerId.startsWith(LOCAL_ID_PREFIX);
}

export class LocalEmbedder {
  readonly dimension: number;
  readonly id: string;

  constructor(options: LocalEmbedderOptions = {}) {
    const dimension = options.dimension ?? 384;
    if (!Number.isInteger(dimension) || dimension < 8) throw new RangeError(`embedding dimension must be an integer >= 8, got ${dimension}`);
    this.dimension = dimension;
    this.id = `${LOCAL_ID_PREFIX}${LOCAL_EMBEDDER_VERSION}:${dimension}`;
  }

  /** Loads the segmenter's dictionary now (at boot) instead of on the first Chinese text of a request. */
  warm(): void {
    segmenter();
  }

  /** Feature → raw count, namespaced as `<ns>\u0001<feature>` (exposed for tests and diagnostics). */
  features(text: string): Map<string, number> {
    const counts = new Map<string, number>();
    const add = (ns: Ns, feature: string): void => {
      const key = `${ns}\u0001${feature}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    };
    const normalized = text.normalize('NFKC').toLowerCase();
    const words: string[] = [];
    let cjk = false;
    for (const token of normalized.match(TOKEN_RE) ?? []) {
      if (CJK_CHAR.test(token[0])) {
        cjk = true;
        for (let i = 0; i < token.length; i++) {
          add(Ns.CjkChar, token[i]);
          if (i + 1 < token.length) add(Ns.CjkBigram, token.slice(i, i + 2));
        }
      } else if (token.length >= 3 && !/^\d+$/.test(token)) {
        const padded = `<${token}>`;
        for (let i = 0; i + 3 <= padded.length; i++) add(Ns.Char3, padded.slice(i, i + 3));
      }
    }
    // Words in text order; one segmenter call per text (a native call per run dominated the cost).
    const pieces = cjk ? segmenter().cut(normalized, true) : (normalized.match(TOKEN_RE) ?? []);
    for (const piece of pieces) for (const word of piece.match(TOKEN_RE) ?? []) words.push(word);
    for (let i = 0; i < words.length; i++) {
      add(Ns.Word, words[i]);
      if (i + 1 < words.length) add(Ns.WordBigram, `${words[i]} ${words[i + 1]}`);
    }
    if (counts.size === 0) for (const ch of normalized) if (ch.trim()) add(Ns.Symbol, ch);
    return counts;
  }

  /** L2-normalized dense vector of `dimension` floats; throws {@link EmptyEmbeddingTextError} on blank text. */
  embed(text: string): number[] {
    if (typeof text !== 'string' || text.trim() === '') throw new EmptyEmbeddingTextError();
    const vector = new Float64Array(this.dimension);
    for (const [key, count] of this.features(text)) {
      const ns = Number(key.slice(0, key.indexOf('\u0001'))) as Ns;
      const h = hash32(key, this.dimension);
      const sign = hash32(key, 0x5bd1e995) & 1 ? 1 : -1;
      vector[h % this.dimension] += sign * GROUP_WEIGHT[ns] * (1 + Math.log(count));
    }
    let norm = 0;
    for (const x of vector) norm += x * x;
    norm = Math.sqrt(norm);
    if (norm === 0) {
      // Signed features cancelled out exactly (vanishingly rare): fall back to one hashed axis.
      vector[hash32(text, 7) % this.dimension] = 1;
      return Array.from(vector);
    }
    return Array.from(vector, (x) => x / norm);
  }

  embedMany(texts: readonly string[]): number[][] {
    return texts.map((text, index) => {
      if (typeof text !== 'string' || text.trim() === '') throw new EmptyEmbeddingTextError(index);
      return this.embed(text);
    });
  }
}
