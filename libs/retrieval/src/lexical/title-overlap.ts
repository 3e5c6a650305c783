/**
 * How much of the question's own wording its candidate's title repeats (docs/retrieval.md "Grading"): the Dice
 * overlap of their surface words — stop words and question words kept, no stemming, Chinese read character by
 * character. An FAQ entry's title is a question; a user's question that repeats its frame (`where can I get
 * tested` → *Where can I get tested for COVID-19?*, not *Should I be tested for COVID-19?*) is evidence the
 * analysed terms lose once the analyzer drops `where` and `can`. Pure: no Nest, no database.
 */

/** A CJK character, or a run of other letters and digits (`e201` stays whole beside Chinese: `E201报警`). */
const WORD = /[\u3400-\u9fff\uf900-\ufaff]|(?:(?![\u3400-\u9fff\uf900-\ufaff])[\p{L}\p{N}])+/gu;

/** The distinct words of `text`, NFKC-folded and lower-cased; Chinese counts each character. */
export function surfaceWords(text: string): ReadonlySet<string> {
  return new Set(text.normalize('NFKC').toLowerCase().match(WORD) ?? []);
}

/** 2·|shared| / (|question words| + |title words|), 0..1; 0 when either is empty. */
export function titleOverlap(question: ReadonlySet<string>, title: ReadonlySet<string>): number {
  if (!question.size || !title.size) return 0;
  let shared = 0;
  for (const word of question) if (title.has(word)) shared++;
  return (2 * shared) / (question.size + title.size);
}
