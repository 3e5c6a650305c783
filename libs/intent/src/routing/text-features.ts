/**
 * Local text featurizer (no weights, no network): word uni/bigrams and per-word char 3-grams for
 * alphabetic scripts, char uni/bigrams (plus optional segmenter words) for CJK, signed-hashed into
 * 2^bits buckets. Output is a bucket → signed count map; TF-IDF weighting lives in `tfidf.ts`.
 */
export interface FeaturizerOptions {
  /** log2 of the bucket count (default 18 → 262,144 buckets). */
  bits?: number;
  /** Optional CJK word segmenter (e.g. jieba); its words are added as extra features. */
  cjkSegmenter?: (run: string) => string[];
}

const CJK_RE = /[\u3400-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]/;
/** Runs of CJK characters or of letters/digits (apostrophes inside words are dropped). */
const TOKEN_RE = /[\u3400-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]+|[\p{L}\p{N}]+/gu;

export function normalizeText(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/['’]/g, '');
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a step over `s[start, end)` (code units); strings are hashed in place, never sliced. */
function fnvRange(h: number, s: string, start: number, end: number): number {
  for (let i = start; i < end; i++) h = Math.imul(h ^ s.charCodeAt(i), FNV_PRIME);
  return h;
}

function fnvChar(h: number, code: number): number {
  return Math.imul(h ^ code, FNV_PRIME);
}

/** murmur3 fmix32 so the low bits used for the bucket are well mixed. */
function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const seed = (ns: number): number => (FNV_OFFSET ^ ns) >>> 0;
const LT = '<'.charCodeAt(0);
const GT = '>'.charCodeAt(0);
const SPACE = ' '.charCodeAt(0);

const NS_WORD = 1;
const NS_BIGRAM = 2;
const NS_CHAR3 = 3;
const NS_CJK1 = 4;
const NS_CJK2 = 5;
const NS_CJKWORD = 6;

export class HashingFeaturizer {
  readonly bits: number;
  readonly buckets: number;
  private readonly mask: number;
  private readonly segmenter?: (run: string) => string[];

  constructor(opts: FeaturizerOptions = {}) {
    this.bits = opts.bits ?? 18;
    this.buckets = 1 << this.bits;
    this.mask = this.buckets - 1;
    this.segmenter = opts.cjkSegmenter;
  }

  /** Signed hashed term counts of `text`. */
  features(text: string): Map<number, number> {
    const out = new Map<number, number>();
    const add = (h: number): void => {
      const x = fmix(h);
      const bucket = x & this.mask;
      out.set(bucket, (out.get(bucket) ?? 0) + (x >>> 31 === 1 ? -1 : 1));
    };
    const tokens = normalizeText(text).match(TOKEN_RE) ?? [];
    let prev: string | null = null;
    for (const tok of tokens) {
      const n = tok.length;
      if (CJK_RE.test(tok[0])) {
        prev = null;
        for (let i = 0; i < n; i++) {
          add(fnvRange(seed(NS_CJK1), tok, i, i + 1));
          if (i + 1 < n) add(fnvRange(seed(NS_CJK2), tok, i, i + 2));
        }
        if (this.segmenter !== undefined) {
          for (const w of this.segmenter(tok)) if (w.length > 1) add(fnvRange(seed(NS_CJKWORD), w, 0, w.length));
        }
        continue;
      }
      add(fnvRange(seed(NS_WORD), tok, 0, n));
      if (prev !== null) add(fnvRange(fnvChar(fnvRange(seed(NS_BIGRAM), prev, 0, prev.length), SPACE), tok, 0, n));
      prev = tok;
      // char 3-grams of `<tok>`: position p of the padded word is '<', tok[p - 1] or '>'
      const at = (p: number): number => (p === 0 ? LT : p === n + 1 ? GT : tok.charCodeAt(p - 1));
      for (let p = 0; p + 3 <= n + 2; p++) add(fnvChar(fnvChar(fnvChar(seed(NS_CHAR3), at(p)), at(p + 1)), at(p + 2)));
    }
    return out;
  }
}
