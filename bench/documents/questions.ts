/**
 * The labelled questions of `bench:documents` (bench/documents/questions.{en,zh}.json, written from the
 * manuals; method in bench/documents/README.md) and the checks every set must pass before a run.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export type ManualLanguage = 'en' | 'zh';
export const MANUAL_LANGUAGES: readonly ManualLanguage[] = ['en', 'zh'];

export interface ManualRef {
  /** The Debian package that installs the manual. */
  package: string;
  /** The package version the pages were labelled on. */
  version: string;
  file: string;
  /** Physical pages of the PDF (pdfinfo), the range of every label. */
  pages: number;
}

export interface AnswerableQuestion {
  id: string;
  question: string;
  /** Every physical PDF page (1-based, as `pdftotext -f N -l N` numbers them) that answers the question. */
  pages: number[];
}

export interface UnanswerableQuestion {
  id: string;
  question: string;
}

export interface QuestionSet {
  language: ManualLanguage;
  manual: ManualRef;
  answerable: AnswerableQuestion[];
  unanswerable: UnanswerableQuestion[];
}

/** Issue 22's minimum per language. */
export const MIN_ANSWERABLE = 30;
export const MIN_UNANSWERABLE = 12;

/** What is wrong with a question set (empty when it is usable). */
export function questionSetProblems(set: QuestionSet): string[] {
  const problems: string[] = [];
  if (set.answerable.length < MIN_ANSWERABLE) problems.push(`${set.answerable.length} answerable questions, at least ${MIN_ANSWERABLE} needed`);
  if (set.unanswerable.length < MIN_UNANSWERABLE) problems.push(`${set.unanswerable.length} unanswerable questions, at least ${MIN_UNANSWERABLE} needed`);
  const ids = new Set<string>();
  const texts = new Set<string>();
  for (const q of [...set.answerable, ...set.unanswerable]) {
    if (ids.has(q.id)) problems.push(`${q.id}: id repeated`);
    ids.add(q.id);
    const text = q.question.trim();
    if (!text) problems.push(`${q.id}: empty question`);
    if (texts.has(text)) problems.push(`${q.id}: question repeated`);
    texts.add(text);
  }
  for (const q of set.answerable) {
    if (!q.pages.length) problems.push(`${q.id}: no pages`);
    for (const p of q.pages) if (!Number.isInteger(p) || p < 1 || p > set.manual.pages) problems.push(`${q.id}: page ${p} outside 1..${set.manual.pages}`);
    if (q.pages.some((p, i) => i > 0 && p <= (q.pages[i - 1] as number))) problems.push(`${q.id}: pages not ascending and distinct`);
  }
  return problems;
}

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * `held-out`: the sets the bars are reported on (nothing is tuned on them); `dev`: sets written the same way on other
 * facts of the same manuals, the ones to look at and tune on (bench/documents/README.md "Held-out and dev sets").
 */
export type QuestionSplit = 'held-out' | 'dev';
export const QUESTION_SPLITS: readonly QuestionSplit[] = ['held-out', 'dev'];

export function questionSetFile(language: ManualLanguage, split: QuestionSplit = 'held-out'): string {
  return split === 'dev' ? `questions.dev.${language}.json` : `questions.${language}.json`;
}

export function loadQuestionSet(language: ManualLanguage, split: QuestionSplit = 'held-out'): QuestionSet {
  return JSON.parse(readFileSync(path.join(here, questionSetFile(language, split)), 'utf8')) as QuestionSet;
}

/** Phrases this long shared with the manual mark a question as copied: 6 words (English), 10 characters or words (Chinese). */
export const COPIED_PHRASE = Object.freeze({ en: 6, zh: 10 });

function units(text: string, language: ManualLanguage): string[] {
  // Chinese: each Han character a unit, a Latin word one unit (a product name is not a copied phrase).
  return text.toLowerCase().match(language === 'zh' ? /\p{Script=Han}|(?:(?!\p{Script=Han})[\p{L}\p{N}'])+/gu : /[\p{L}\p{N}']+/gu) ?? [];
}

/**
 * The first phrase of `question` (COPIED_PHRASE words or characters) that also occurs in the manual's text,
 * or null: the bench's guard that no question copies the manual's wording.
 */
export function copiedPhrase(question: string, manualText: string, language: ManualLanguage): string | null {
  const n = COPIED_PHRASE[language];
  const join = (parts: string[]) => parts.join(' ');
  const manual = units(manualText, language);
  const phrases = new Set<string>();
  for (let i = 0; i + n <= manual.length; i++) phrases.add(join(manual.slice(i, i + n)));
  const q = units(question, language);
  for (let i = 0; i + n <= q.length; i++) {
    const phrase = join(q.slice(i, i + n));
    if (phrases.has(phrase)) return phrase;
  }
  return null;
}
