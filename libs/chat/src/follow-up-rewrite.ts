/**
 * Conversations that remember (docs/chat-clients.md "Conversations"): a follow-up message resolved to a standalone
 * question from the conversation's earlier turns, by rules (no model), the history the model sees within the
 * configured limits, and whether a question repeats an earlier one ("already provided" only then,
 * docs/spec/retrieval.md §4). Pure: no Nest, no database.
 */

/** An earlier turn of the conversation, oldest first in a history. */
export interface PriorTurn {
  /** The user's message as sent. */
  message: string;
  /** The standalone question it was resolved to (the message itself when it stood alone). */
  query: string;
  /** The standalone question that set the topic this turn is about (the rules carry it forward). */
  topic: string;
  /** The reply (null when the turn failed or is unknown). */
  answer: string | null;
  intent: string | null;
  /** The knowledge domain its best lookup answered from, if any. */
  domain: string | null;
}

/** The rule that resolved a follow-up; `none`: the message stands alone (or there is nothing earlier). */
export type RewriteRule = 'none' | 'code_swap' | 'still_failing' | 'cause' | 'next_step' | 'what_about' | 'anaphora' | 'short';

export interface FollowUpRewrite {
  /** The standalone question (the message itself for `none`). */
  query: string;
  /**
   * What the knowledge lookup searches: the standalone question, except for a follow-up on the same topic (it still
   * fails, its cause, the next step, "it", a bare "怎么办"), which searches the topic plus the message's own topic terms:
   * the document that answered the topic answers them, and the follow-up's function words only dilute the search.
   */
  search: string;
  by: RewriteRule;
  /** The topic the next follow-up carries (see `PriorTurn.topic`). */
  topic: string;
  /** The earlier turn's intent and domain, carried when the follow-up stays on its topic (null otherwise). */
  carry: { intent: string | null; domain: string | null };
}

/** An error or part code: one to four letters and two to five digits (E201, ERR-42, RX200). */
const CODE = /(?<![A-Za-z0-9])[A-Za-z]{1,4}-?\d{2,5}(?![A-Za-z0-9])/g;
const LATIN = /[A-Za-z][A-Za-z'-]*/g;
/** English words that carry no topic of their own (pronouns, question and follow-up words). */
const EN_STOP = new Set(
  (
    "a an the is are was were be been being am do does did done doing i i'm my me we our us you your it it's its this that these those they them their there " +
    "what whats what's which who whom how why when where about and or but of to in on at by for with from into as if so then than also too just any some " +
    'can could should would will shall may might must have has had not no yes still again else more other another instead same please thanks thank ok okay ' +
    'now next step steps cause causes caused reason reasons happen happens happened happening work works working worked help helps helped fix fixed ' +
    'problem problems issue issues mean means tell know get got make go going try tried anything something nothing after before here one ones thing things ' +
    "don't doesn't didn't isn't won't can't cannot wrong right keep keeps kept like check see look need want use"
  ).split(/\s+/),
);
/** Chinese function words and follow-up phrasing: removed before looking for topic terms (longest first). */
const ZH_STOP = [
  '为什么',
  '怎么回事',
  '怎么处理',
  '怎么解决',
  '怎么办',
  '怎么样',
  '下一步',
  '接下来',
  '还是不行',
  '没有用',
  '不管用',
  '没解决',
  '不起作用',
  '还能做什么',
  '什么原因',
  '是什么',
  '怎么',
  '如何',
  '什么',
  '为啥',
  '原因',
  '然后',
  '之后',
  '以后',
  '还是',
  '仍然',
  '依然',
  '不行',
  '没用',
  '这个',
  '那个',
  '这样',
  '那样',
  '这些',
  '那些',
  '它们',
  '他们',
  '我们',
  '请问',
  '一下',
  '应该',
  '可以',
  '需要',
  '问题',
  '情况',
  '还有',
  '那么',
  '的话',
  '做',
  '它',
  '这',
  '那',
  '呢',
  '吗',
  '吧',
  '啊',
  '呀',
  '了',
  '的',
  '得',
  '地',
  '是',
  '还',
  '也',
  '都',
  '就',
  '又',
  '再',
  '请',
  '该',
  '要',
  '我',
  '你',
  '有',
  '和',
  '跟',
  '会',
  '能',
  '在',
  '说',
].sort((a, b) => b.length - a.length);
const HAN_RUN = /\p{Script=Han}+/gu;

/** "Still" as an adverb ("还是要输密码", "the connection is still slow") or a phrase saying the answer did not help. */
const STILL_FAILING =
  /还是|仍然|依然|仍旧|没用|没有用|不管用|没解决|不起作用|没效果|\bstill\b|not working|didn'?t (?:help|work|fix)|did not (?:help|work|fix)|no luck|same (?:problem|error|alarm)/i;
const CAUSE = /为什么|为啥|原因|怎么回事|什么导致|\bwhy\b|\bcauses?\b|\bcaused\b|\breason\b|how come/i;
const NEXT_STEP =
  /下一步|接下来|然后呢|然后怎么|之后呢|之后怎么|还能做什么|还能怎么|next step|what next|what now|then what|what else|do next|after that|what should i do/i;
const ANAPHORA = /\b(?:it|its|it's|that|this|these|those|they|them|there)\b|这个|那个|这些|那些|这样|那样|其中|它|该|上述|刚才|上面|前面/i;
/** "what about X?", "how about X", "and X?", "那 X 呢", "X 呢？", "X 怎么样". */
const WHAT_ABOUT_EN = /^\s*(?:and\s+)?(?:what|how)\s+about\s+(.+?)[\s?？.!！]*$|^\s*and\s+(.+?)\s*[?？]+\s*$/i;
const WHAT_ABOUT_ZH = /^\s*(?:那么?|还有)?\s*(.+?)\s*(?:呢|怎么样|又如何|如何呢)\s*[？?。!！]*\s*$/u;

/** The codes in a text, upper-cased, in order. */
export function codesOf(text: string): string[] {
  return (text.match(CODE) ?? []).map((c) => c.toUpperCase());
}

/** Words that carry a topic: codes, English words outside EN_STOP, Chinese runs of two or more characters left after ZH_STOP. */
export function topicTerms(text: string): string[] {
  const codes = codesOf(text);
  const rest = text.replace(CODE, ' ');
  const latin = (rest.match(LATIN) ?? []).map((w) => w.toLowerCase()).filter((w) => w.length > 1 && !EN_STOP.has(w));
  let han = rest.match(HAN_RUN)?.join(' ') ?? '';
  for (const word of ZH_STOP) han = han.split(word).join(' ');
  const zh = han.split(/\s+/).filter((w) => w.length >= 2);
  return [...codes, ...latin, ...zh];
}

const join = (...parts: string[]) =>
  parts
    .map((p) => p.trim())
    .filter(Boolean)
    .join(' ');

/** The topic with its codes replaced by `codes` (appended when it has none). */
function swapCodes(topic: string, codes: readonly string[]): string {
  let i = 0;
  let replaced = false;
  const swapped = topic.replace(CODE, () => {
    replaced = true;
    return i < codes.length ? codes[i++] : '';
  });
  const rest = codes.slice(i);
  return replaced ? join(swapped.replace(/\s{2,}/g, ' '), ...rest) : join(topic, ...codes);
}

/** The subject of "what about X" / "那 X 呢", if the message has that shape. */
function whatAboutSubject(message: string): string | null {
  const en = WHAT_ABOUT_EN.exec(message);
  if (en) return (en[1] ?? en[2] ?? '').trim() || null;
  const zh = WHAT_ABOUT_ZH.exec(message);
  return zh ? zh[1].trim() || null : null;
}

/**
 * Resolves `message` against the conversation's earlier turns (oldest first) by the first rule that applies:
 *
 * | rule | when (the message…) | standalone question (`search`: what the lookup searches) | carries intent, domain |
 * |---|---|---|---|
 * | `none` | has no earlier turn, or has its own topic and none of the shapes below | the message | no |
 * | `still_failing` | says it still fails ("还是不行", "还是要输密码", "still not working", "the connection is still slow") with at most three topic terms | topic + message (search: topic + its topic terms) | yes |
 * | `cause` | asks why ("为什么会这样", "why does that happen?") with at most two topic terms | topic + message (search: topic + its topic terms) | yes |
 * | `next_step` | asks what to do next ("下一步呢", "what's the next step?") with at most two topic terms | topic + message (search: topic + its topic terms) | yes |
 * | `code_swap` | is only a code, maybe wrapped ("那 E202 呢？", "what about E202?") | the earlier topic with its code replaced | yes |
 * | `what_about` | asks "what about X" / "那 X 呢" about a new subject X | X | no |
 * | `anaphora` | points back ("it", "that", "这个", "它") with at most three topic terms | topic + message (search: topic + its topic terms) | yes |
 * | `short` | has no topic term of its own ("怎么办？", "how do I fix it?") | topic + message (search: the topic) | yes |
 *
 * A message that is only a code plus a cause, next-step or still-failing phrase ("E202 为什么") takes the first three
 * rules with the topic about that code.
 *
 * The topic is the standalone question that set the subject (`PriorTurn.topic` of the last turn); a rewritten
 * follow-up keeps it, so "还是不行" after "下一步呢" still carries the first question, not both.
 */
export function rewriteFollowUp(message: string, history: readonly PriorTurn[]): FollowUpRewrite {
  const text = message.trim();
  const prior = history.at(-1);
  const standalone: FollowUpRewrite = { query: text, search: text, by: 'none', topic: text, carry: { intent: null, domain: null } };
  if (!prior || !prior.topic.trim()) return standalone;
  const topic = prior.topic.trim();
  const codes = codesOf(text);
  const own = topicTerms(text.replace(CODE, ' '));
  const same = (by: RewriteRule, query: string, newTopic = topic): FollowUpRewrite => ({
    query,
    search: by === 'code_swap' ? query : join(newTopic, ...own),
    by,
    topic: newTopic,
    carry: { intent: prior.intent, domain: prior.domain },
  });
  // Only a code ("那 E202 呢？", "E201 还是不行"): the topic about that code.
  const onlyCodes = codes.length > 0 && own.length === 0;
  const about = onlyCodes ? swapCodes(topic, codes) : topic;
  if (!codes.length || onlyCodes) {
    if (STILL_FAILING.test(text) && own.length <= 3) return same('still_failing', join(about, text), about);
    if (CAUSE.test(text) && own.length <= 2) return same('cause', join(about, text), about);
    if (NEXT_STEP.test(text) && own.length <= 2) return same('next_step', join(about, text), about);
  }
  if (onlyCodes) return same('code_swap', about, about);
  if (!codes.length) {
    const subject = whatAboutSubject(text);
    if (subject && topicTerms(subject).length > 0 && !ANAPHORA.test(subject)) {
      // A new subject: the earlier topic's words would pull the search back to the earlier document (its title and
      // keywords are exact hits), so the subject is searched alone (bench/chat/followups: hit@5 of both forms).
      return { query: subject, search: subject, by: 'what_about', topic: subject, carry: { intent: null, domain: null } };
    }
    if (ANAPHORA.test(text) && own.length <= 3) return same('anaphora', join(topic, text));
    if (own.length === 0) return same('short', join(topic, text));
  }
  return standalone;
}

/** Question words counted when comparing two questions (topic terms plus the follow-up's aspect: why, next, still…). */
function questionTerms(text: string): Set<string> {
  // Chinese runs compared by character bigrams: "报警" repeats "机械臂报警" (unsegmented text).
  const terms = new Set(topicTerms(text).flatMap((t) => (/^\p{Script=Han}+$/u.test(t) ? bigrams(t) : [t])));
  const aspects: [RegExp, string][] = [
    [STILL_FAILING, '#still'],
    [CAUSE, '#cause'],
    [NEXT_STEP, '#next'],
  ];
  for (const [re, tag] of aspects) if (re.test(text)) terms.add(tag);
  return terms;
}

/**
 * A repeat of an earlier question of the conversation: its standalone question adds no term (topic word, code, or the
 * aspect asked: cause, next step, still failing) to one earlier standalone question. Only then does an answer
 * already given stay "already provided" (docs/spec/retrieval.md §4 deviation); a new question about the same
 * document is answered from it again.
 */
export function isRepeatQuestion(query: string, history: readonly Pick<PriorTurn, 'query'>[]): boolean {
  const asked = questionTerms(query);
  if (asked.size === 0) return history.some((h) => normalise(h.query) === normalise(query));
  return history.some((h) => {
    const earlier = questionTerms(h.query);
    for (const term of asked) if (!earlier.has(term)) return false;
    return true;
  });
}

const bigrams = (run: string): string[] => (run.length < 3 ? [run] : Array.from({ length: run.length - 1 }, (_, i) => run.slice(i, i + 2)));

const normalise = (text: string) => text.toLowerCase().replace(/[\s\p{P}]+/gu, '');

/** A history message the model sees. */
export interface HistoryTurnMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface HistoryLimits {
  /** At most this many earlier turns (a user message and its reply). */
  turns: number;
  /** At most this many characters across the messages. */
  chars: number;
}

/**
 * What the model sees of the stored conversation: the last `turns` turns, oldest first, dropping the oldest while
 * the characters exceed `chars` (a reply longer than what is left is cut at its end, never the question).
 */
export function historyMessages(history: readonly PriorTurn[], limits: HistoryLimits): HistoryTurnMessage[] {
  const kept: HistoryTurnMessage[][] = [];
  if (limits.turns <= 0) return [];
  let left = limits.chars;
  for (const turn of history.slice(-limits.turns).reverse()) {
    if (turn.message.length > left) break;
    left -= turn.message.length;
    const pair: HistoryTurnMessage[] = [{ role: 'user', content: turn.message }];
    if (turn.answer && left > 0) {
      const answer = turn.answer.length > left ? `${turn.answer.slice(0, Math.max(0, left - 1))}…` : turn.answer;
      left -= answer.length;
      pair.push({ role: 'assistant', content: answer });
    }
    kept.unshift(pair);
  }
  return kept.flat();
}

/**
 * A client-sent history (the OpenAI-compatible `messages` before the question) as earlier turns: each user message
 * with the assistant's reply after it, resolved by the rules in order so a chain of follow-ups keeps its topic.
 */
export function priorTurnsFromMessages(messages: readonly HistoryTurnMessage[]): PriorTurn[] {
  const turns: PriorTurn[] = [];
  for (const m of messages) {
    if (m.role === 'assistant') {
      const last = turns.at(-1);
      if (last) last.answer = last.answer === null ? m.content : `${last.answer}\n${m.content}`;
      continue;
    }
    const resolved = rewriteFollowUp(m.content, turns);
    turns.push({ message: m.content, query: resolved.query, topic: resolved.topic, answer: null, intent: null, domain: null });
  }
  return turns;
}

/** How many turns a client-sent history holds: its user messages (each with the replies after it). */
export function historyTurnCount(history: readonly HistoryTurnMessage[]): number {
  return history.filter((m) => m.role === 'user').length;
}

/**
 * The condensing call's prompt (a configured model resolves the follow-up instead of the rules): the conversation,
 * then the follow-up; the model answers with the standalone question only.
 */
export function condensePrompt(message: string, history: readonly HistoryTurnMessage[]): { system: string; user: string } {
  const transcript = history.map((m) => `${m.role === 'user' ? 'User' : 'Assistant'}: ${m.content}`).join('\n');
  return {
    system:
      'You rewrite the last message of a support conversation as one standalone question for a knowledge-base search. ' +
      'Resolve pronouns, codes and short follow-ups ("still not working", "what about E202?") from the conversation; keep the ' +
      "message's language and every code and product name; if it already stands alone, return it unchanged. " +
      'Answer with the question only: no quotes, no explanation.',
    user: `Conversation:\n${transcript}\n\nLast message: ${message}\n\nStandalone question:`,
  };
}

/** The model's condensed question, cleaned (quotes, a leading label, surrounding space); null when unusable. */
export function condensedQuestion(output: string, maxLength: number): string | null {
  const line = output
    .trim()
    .replace(/^(?:standalone question|question|问题)\s*[:：]\s*/i, '')
    .replace(/^["'“”‘’「」]+|["'“”‘’「」]+$/g, '')
    .trim();
  // Empty, too long, or a structured answer (JSON) is no question.
  if (!line || line.length > maxLength || /^[[{]/.test(line)) return null;
  return line;
}
