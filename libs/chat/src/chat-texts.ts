/**
 * The chat's fixed texts in the user's language. Pure logic: no Nest, no database.
 *
 * The not-found exit must be recognised by the coverage evaluator v1 (docs/spec/coverage.md rule 1) in both
 * languages: the v1 phrase lists are Chinese only, so the English exit carries the Chinese marker
 * "未找到相关资料" next to its English wording. The other texts must never contain a v1 no-answer
 * phrase (未找到, 没有找到, 无法确定, 暂无相关, 知识库中没有 …), or a good answer would count as a miss.
 */
import type { ChatLanguage } from './chat-language.js';
import { describeLocation, type LocatedResult } from '@arbiter/retrieval';

export interface ClarifyOption {
  intent: string;
  /** Human label (the rule's description) when known; the intent name otherwise. */
  label?: string | null;
}

export interface SourceLine extends LocatedResult {
  title: string;
}

export function clarifyText(lang: ChatLanguage, options: readonly ClarifyOption[]): string {
  const lines = options.map((o, i) => `${i + 1}. ${o.label?.trim() || o.intent}`);
  if (lang === 'zh') {
    return lines.length
      ? ['为了更准确地帮助您，请问您想咨询的是以下哪一项？', ...lines, '请回复对应的序号，或补充更多细节。'].join('\n')
      : '为了更准确地帮助您，请补充更多细节，例如设备型号、报警代码或具体操作步骤。';
  }
  return lines.length
    ? ['To help you accurately, which of these do you mean?', ...lines, 'Reply with the number, or add a few more details.'].join('\n')
    : 'To help you accurately, please add a few more details, such as the model, the alarm code or the exact step.';
}

export function handoffText(lang: ChatLanguage): string {
  return lang === 'zh'
    ? '好的，正在为您转接人工客服，请稍候。客服接入后会继续处理您的问题。'
    : 'OK, I am transferring you to a human agent. Please hold on; they will pick up your question from here.';
}

/** The legitimate exit (docs/spec/retrieval.md §3): nothing found, suggest support — recognised by coverage v1. */
export function notFoundText(lang: ChatLanguage): string {
  return lang === 'zh'
    ? '抱歉，知识库中未找到与您的问题相关的资料。建议您联系技术支持或人工客服，以便进一步确认。'
    : 'Sorry, no relevant material was found in the knowledge base (未找到相关资料). Please contact technical support or a human agent for further help.';
}

/** Everything the knowledge base had for this question was already given earlier in the conversation. */
export function alreadyProvidedText(lang: ChatLanguage, sources: readonly SourceLine[]): string {
  const list = sources.map((s) => `《${s.title}》`).join('、');
  if (lang === 'zh') {
    return `相关资料已在本次对话的前面回答中提供${list ? `（${list}）` : ''}，请参考上文。如果问题仍未解决，可以转人工客服进一步排查。`;
  }
  const en = sources.map((s) => `"${s.title}"`).join(', ');
  return `The relevant material was already given earlier in this conversation${en ? ` (${en})` : ''}; please see the answers above. If the problem persists, a human agent can look into it further.`;
}

/** Why an answer carries a caveat: the best match is only a reference (docs/spec/evaluation.md §3). */
export interface CaveatReason {
  /** The best result's calibrated relevance, 0–1. */
  bestRelevance: number;
}

/** Prefix of a REFERENCE-grade answer at medium confidence, naming its reason (docs/spec/evaluation.md §3). */
export function caveatText(lang: ChatLanguage, reason: CaveatReason): string {
  const percent = Math.round(Math.min(Math.max(reason.bestRelevance, 0), 1) * 100);
  return lang === 'zh'
    ? `提示：以下内容来自最接近的参考资料（相关度 ${percent}%），与问题不完全对应，仅供参考，可能不完整；如有疑问可转人工客服确认。`
    : `Note: the following comes from the closest reference material (relevance ${percent}%), which matches the question only in part and may be incomplete; a human agent can confirm it if in doubt.`;
}

export function answerIntroText(lang: ChatLanguage): string {
  return lang === 'zh' ? '根据知识库资料：' : 'According to the knowledge base:';
}

export function sourcesBlock(lang: ChatLanguage, sources: readonly SourceLine[]): string {
  if (!sources.length) return '';
  const head = lang === 'zh' ? '参考资料：' : 'Sources:';
  return [head, ...sources.map((s, i) => `[${i + 1}] ${s.title} (${describeLocation(s)})`)].join('\n');
}

/** Polite reply when the run failed; the session is recorded FAILED with the error. */
export function failureText(lang: ChatLanguage): string {
  return lang === 'zh'
    ? '抱歉，处理您的问题时出现了异常，我们已记录该问题。请稍后重试，或转人工客服处理。'
    : 'Sorry, something went wrong while handling your question and it has been logged. Please try again shortly, or ask for a human agent.';
}

/** Reply of an `answer` intent whose rule has no reply text configured. */
export function emptyRuleReplyText(lang: ChatLanguage): string {
  return lang === 'zh' ? '您好，请问有什么可以帮您？' : 'Hello, how can I help you?';
}
