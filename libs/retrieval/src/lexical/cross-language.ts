import { chineseIndexTerms, type BilingualDictionary } from './bilingual-dictionary.js';
import { CJK_BIGRAM_PREFIX } from './text-analyzer.js';

/**
 * Query translation for cross-language retrieval (docs/retrieval.md "Cross-language retrieval"): each
 * analyzed query term gets the index terms of its translations — a Chinese word its English gloss terms
 * (`发票` → `invoic`, `receipt`, `bill`), an English term or pair of terms the character bigrams of its
 * Chinese words (`reset` → `~重置`, `~复位`), a Chinese bigram those of the query words that contain it;
 * a term in traditional characters also its simplified form.
 * The translated terms are searched as a list of their own; the query's terms and their translations
 * count as one term in the grade's evidence (coverage, unknown share, rarest term). Pure: no Nest, no
 * database.
 */
export interface QueryTranslation {
  /** Translated index terms that are not among the query's own, in order. */
  terms: string[];
  /** Query term → its translated index terms (absent: none). */
  alternatives: Record<string, string[]>;
  /** The translations as text (English glosses, Chinese words), to embed: the translated query's vector. */
  text: string;
}

const CJK = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/u;
const LATIN_WORD = /^[a-z]+$/;

/** Translations of the analyzed query terms (`ordered`: as the analyzer returned them, with repeats). */
export function translateQueryTerms(ordered: readonly string[], dictionary: BilingualDictionary): QueryTranslation {
  const alternatives: Record<string, string[]> = {};
  const add = (term: string, more: readonly string[]) => {
    if (!more.length) return;
    const list = (alternatives[term] ??= []);
    for (const m of more) if (m !== term && !list.includes(m)) list.push(m);
  };
  const text: string[] = [];
  const words = ordered.filter((t) => CJK.test(t) && !t.startsWith(CJK_BIGRAM_PREFIX));
  // Traditional characters: the simplified form is another form of the term (`機械` → `机械`), and the
  // dictionary is read with it.
  const simplify = (t: string) => [...t].map((c) => dictionary.simplified(c)).join('');
  for (const w of new Set(words)) {
    const simple = simplify(w);
    add(w, [simple]);
    add(w, dictionary.english(simple));
    text.push(...dictionary.glosses(simple));
  }
  const latin = ordered.filter((t) => LATIN_WORD.test(t));
  for (const t of new Set(latin)) {
    add(t, dictionary.chinese(t).flatMap(chineseIndexTerms));
    text.push(...dictionary.chinese(t));
  }
  for (let i = 0; i + 1 < latin.length; i++) {
    const words2 = dictionary.chinese(`${latin[i]} ${latin[i + 1]}`);
    const pair = words2.flatMap(chineseIndexTerms);
    add(latin[i], pair);
    add(latin[i + 1], pair);
    text.push(...words2);
  }
  for (const b of new Set(ordered.filter((t) => t.startsWith(CJK_BIGRAM_PREFIX)))) {
    add(b, [simplify(b)]);
    const text = b.slice(CJK_BIGRAM_PREFIX.length);
    for (const w of words) if (w.includes(text)) add(b, alternatives[w] ?? []);
  }
  const own = new Set(ordered);
  const terms = [...new Set(Object.values(alternatives).flat())].filter((t) => !own.has(t));
  return { terms, alternatives, text: [...new Set(text)].join(' ') };
}
