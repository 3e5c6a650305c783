/**
 * The keyword form of a question (bench/retrieval/README.md "Datasets"): what a user types into a search box.
 * English: the words (letters, digits, inner apostrophes) minus the `stopword` package's English list. Chinese: jieba's
 * words minus those made only of the package's Chinese stop characters (its list is of single characters: `什么`,
 * `我们` go, `怎么` stays) and punctuation. A question with no word left keeps its text.
 */
import { Jieba } from '@node-rs/jieba';
import { dict } from '@node-rs/jieba/dict.js';
import { eng, removeStopwords, zho } from 'stopword';

const jieba = Jieba.withDict(dict);
const chineseStopCharacters = new Set(zho);
/** A word, with inner apostrophes (`don't`) but not quotes around it (`'were`). */
const WORD = /[\p{L}\p{N}]+(?:'[\p{L}\p{N}]+)*/gu;

function chineseKeywords(text: string): string[] {
  return jieba
    .cut(text, false)
    .filter((word) => /[\p{L}\p{N}]/u.test(word))
    .filter((word) => ![...word].every((c) => chineseStopCharacters.has(c)));
}

export function keywordForm(text: string, language: 'en' | 'zh'): string {
  const words = language === 'zh' ? chineseKeywords(text) : removeStopwords(text.toLowerCase().match(WORD) ?? [], eng);
  return words.length > 0 ? words.join(' ') : text;
}
