/**
 * Two-stage clarification (docs/chat-clients.md "Clarification"): which of the offered intents the user's
 * answer to a clarifying question picks. Pure: no Nest, no database.
 *
 * In this order, the first that decides wins:
 * 1. **number** — the option's number as the clarifying question listed it: "2", "２", "2.", "#2", "option 2",
 *    "number two", "two", "二", "第二个", "第2项", "选2", "the second one", "2nd", "last" / "最后一个";
 *    a number outside the list picks nothing;
 * 2. **label** — the answer is an option's label or intent name (case, width, spaces and punctuation ignored),
 *    or names exactly one option's label, a part of it between "/" or an intent name;
 * 3. **paraphrase** — the answer shares most of its words (English words, Chinese characters) with one
 *    option's label and intent name, clearly more than with any other.
 */
import type { ClarifyOption } from './chat-texts.js';

export type ClarifyPick = { kind: 'picked'; index: number; intent: string; by: 'number' | 'label' | 'paraphrase' } | { kind: 'none' };

/** At least this share of the answer's words must be in the option (paraphrase). */
export const PARAPHRASE_MIN_SHARE = 0.5;
/** The best option's share must beat the next one's by this much (paraphrase). */
export const PARAPHRASE_MIN_LEAD = 0.2;

const ZH_DIGITS: Record<string, number> = { 一: 1, 二: 2, 两: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9, 十: 10 };
const EN_NUMBERS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  first: 1,
  second: 2,
  third: 3,
  fourth: 4,
  fifth: 5,
  sixth: 6,
  seventh: 7,
  eighth: 8,
  ninth: 9,
  tenth: 10,
};
const EN_STOPWORDS = new Set([
  'the',
  'a',
  'an',
  'i',
  'it',
  'is',
  'to',
  'of',
  'my',
  'me',
  'about',
  'mean',
  'want',
  'please',
  'one',
  'that',
  'this',
  'and',
  'or',
  'for',
  'with',
]);
// Function characters that say nothing about the option.
const ZH_STOP_CHARS = new Set([...'的了吗呢吧啊呀是我你他她它们一下个么怎样什这那要想请问就和或还']);
const ZH_FILLER = /^(?:我想?(?:要|问|咨询|选|说)?的?是?|我选|就是|应该是|是|选择?|要)|(?:吧|呢|啊|呀|的|那个|这个|那项|这项|问题)$/gu;

/** Lower case, full width → half width (NFKC), no spaces or punctuation at the ends. */
export function normalizeAnswer(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/^[\s\p{P}\p{S}]+|[\s\p{P}\p{S}]+$/gu, '')
    .replace(/\s+/g, ' ');
}

/** The 1-based number an answer names ("2", "第二个", "the second one", "last"), or null. */
export function numberOf(answer: string, count: number): number | null {
  const a = normalizeAnswer(answer);
  if (/^(?:the )?last(?: one)?$|^最后(?:一个|一项|那个)?$/.test(a)) return count;
  const zh = /^(?:我?选(?:择)?|要)?\s*(?:第|#)?\s*(\d{1,2}|[一二两三四五六七八九十])\s*(?:个|项|号|条|种|种情况)?(?:吧|呢|啊)?$/u.exec(a);
  if (zh?.[1]) return toNumber(zh[1]);
  const en = /^(?:i (?:mean|want|choose|pick) )?(?:the )?(?:option |number |no\.? ?|choice |#)?(\d{1,2}|[a-z]+)(?:st|nd|rd|th)?(?: one| option)?$/.exec(a);
  if (en?.[1]) return toNumber(en[1]);
  return null;
}

function toNumber(token: string): number | null {
  if (/^\d+$/.test(token)) return Number(token);
  return ZH_DIGITS[token] ?? EN_NUMBERS[token] ?? null;
}

/** Words of a text: English words and Chinese characters (stop words and function characters dropped). */
export function wordsOf(text: string): Set<string> {
  const words = new Set<string>();
  const norm = text.normalize('NFKC').toLowerCase().replace(/_/g, ' ');
  for (const w of norm.match(/[a-z0-9]+/g) ?? []) if (!EN_STOPWORDS.has(w) && (w.length > 1 || /\d/.test(w))) words.add(w);
  for (const ch of norm.match(/\p{Script=Han}/gu) ?? []) if (!ZH_STOP_CHARS.has(ch)) words.add(ch);
  return words;
}

/** The names an option answers to: its label, each part of the label between "/", and its intent name. */
function namesOf(option: ClarifyOption): string[] {
  const label = option.label?.trim() ?? '';
  const parts = label ? [label, ...label.split(/[/|／]/)] : [];
  return [...parts, option.intent, option.intent.replace(/_/g, ' ')].map(normalizeAnswer).filter((n) => n.length > 0);
}

export function pickClarification(answer: string, options: readonly ClarifyOption[]): ClarifyPick {
  if (!options.length) return { kind: 'none' };
  const picked = (index: number, by: 'number' | 'label' | 'paraphrase'): ClarifyPick => ({ kind: 'picked', index, intent: options[index]!.intent, by });

  const n = numberOf(answer, options.length);
  if (n !== null) return n >= 1 && n <= options.length ? picked(n - 1, 'number') : { kind: 'none' };

  const a = normalizeAnswer(answer);
  const bare = normalizeAnswer(a.replace(ZH_FILLER, ''));
  if (!a) return { kind: 'none' };
  const exact = options.findIndex((o) => namesOf(o).some((name) => name === a || name === bare));
  if (exact >= 0) return picked(exact, 'label');
  // The answer names one option (a name of at least two characters inside the answer), and no other.
  const naming = options.map((o, i) => (namesOf(o).some((name) => name.length >= 2 && a.includes(name)) ? i : -1)).filter((i) => i >= 0);
  if (naming.length === 1) return picked(naming[0]!, 'label');
  if (naming.length > 1) return { kind: 'none' };

  const words = wordsOf(a);
  if (!words.size) return { kind: 'none' };
  const shares = options.map((o) => {
    const own = wordsOf(`${o.label ?? ''} ${o.intent}`);
    let shared = 0;
    for (const w of words) if (own.has(w)) shared++;
    return shared / words.size;
  });
  const order = shares.map((s, i) => ({ s, i })).sort((x, y) => y.s - x.s);
  const best = order[0]!;
  const next = order[1]?.s ?? 0;
  return best.s >= PARAPHRASE_MIN_SHARE && best.s - next >= PARAPHRASE_MIN_LEAD ? picked(best.i, 'paraphrase') : { kind: 'none' };
}
