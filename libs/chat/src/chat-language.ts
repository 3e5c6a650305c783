/**
 * Language of a user message for the chat's fixed texts (clarify, hand-off, not-found, caveat).
 * Pure logic: no Nest, no database.
 */
export type ChatLanguage = 'zh' | 'en';

const HAN = /\p{Script=Han}/gu;
const LATIN_WORD = /[A-Za-z]{2,}/g;

/**
 * Chinese when the message has at least as many Han characters as Latin words (a Han character
 * carries about a word), English when Latin words dominate. Messages with neither (digits, codes,
 * emoji) default to Chinese, the product's primary language. Error codes like "E201" are single
 * letters + digits and never count as words.
 */
export function detectLanguage(message: string): ChatLanguage {
  const han = message.match(HAN)?.length ?? 0;
  const words = message.match(LATIN_WORD)?.length ?? 0;
  if (han === 0 && words === 0) return 'zh';
  return han >= words ? 'zh' : 'en';
}
