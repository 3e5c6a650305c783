/**
 * The knowledge branch's reply from the turn's lookups: the confidence policy (docs/spec/evaluation.md §3) applied to
 * the best lookup, then the LLM's answer (caveat prefixed, sources appended) or the extractive one.
 * Pure: no Nest, no database; records the policy, event and confidence in the turn's trace.
 */
import type { LookupResultItem } from '@arbiter/retrieval';
import { composeExtractiveAnswer, selectChunks } from './answer-composer.js';
import { carriedReferences } from './carried-references.js';
import { alreadyProvidedText, caveatText, notFoundText, sourcesBlock } from './chat-texts.js';
import type { ChatLanguage } from './chat-language.js';
import type { AnswerPreamble } from './chat-stream.js';
import type { LookupRecord, TurnContext, TurnOutcome } from './chat-turn.js';
import { decideAnswerPolicy } from './confidence-policy.js';
import { itemLevel, pickBestLookup, turnDocuments, type GradedItem } from './lookup-ranking.js';

const MAX_CITED = 5;

/** The confidence policy over the turn's lookups: the best lookup, the documents it may quote, and the action. */
function decideFromLookups(records: readonly LookupRecord[]) {
  const best = pickBestLookup(records);
  if (!best) throw new Error('no lookup to answer from');
  const r = best.result;
  const { items, withheld } = turnDocuments(records, best);
  const policy = decideAnswerPolicy({
    relevanceLevel: r.relevanceLevel,
    completenessHint: r.completenessHint,
    confidenceLevel: r.confidence.level,
    resultCount: items.length,
    // Everything left was cited earlier in the conversation: the same "already given" signal as the lib's dedup.
    dedupReason: r.dedupReason ?? (withheld.length > 0 ? 'conversation_cited' : null),
    strongResultReturned: best.items.some((i) => itemLevel(i, r) === r.relevanceLevel),
  });
  const caveat = policy.action === 'answer_with_caveat' ? { bestRelevance: Math.max(0, ...items.map((i) => i.relevance)) } : undefined;
  return { r, items, withheld, policy, caveat };
}

/**
 * Whether the model's answer, were it to end the run now, would be the reply (docs/chat-clients.md "Streaming"):
 * with these lookups the policy answers (with or without a caveat), so its tokens can be streamed as they come,
 * after `prefix` (the caveat and its blank line). Without a lookup the answer is not trusted (offline answer),
 * and a not-found or already-given answer replaces it: nothing to stream. Pure, no trace written.
 */
export function answerPreamble(lang: ChatLanguage, records: readonly LookupRecord[]): AnswerPreamble {
  if (!records.length) return { stream: false };
  const { policy, caveat } = decideFromLookups(records);
  switch (policy.action) {
    case 'answer':
      return { stream: true, prefix: '' };
    case 'answer_with_caveat':
      return { stream: true, prefix: `${caveatText(lang, caveat ?? { bestRelevance: 0 })}\n\n` };
    case 'legitimate_exit':
    case 'already_provided':
      return { stream: false };
  }
}

export function answerFromLookups(
  ctx: TurnContext,
  records: readonly LookupRecord[],
  llmAnswer: string | null,
  stepCount: number,
  toolCallCount: number,
): TurnOutcome {
  const { r, items, withheld, policy, caveat } = decideFromLookups(records);
  ctx.trace.policy = policy;
  ctx.trace.events.push(r.confidence.event);
  // A knowledge answer (or a pointer back to one) reports its lookup's retrieval confidence; the not-found exit 0.
  ctx.trace.confidence =
    policy.action === 'legitimate_exit'
      ? { source: 'not_found', score: 0, retrieval: r.confidence.score, level: r.confidence.level, reasons: r.confidence.reasons }
      : { source: 'retrieval', score: r.confidence.score, level: r.confidence.level, reasons: r.confidence.reasons, profile: r.confidence.profile };
  const base = {
    branch: 'knowledge' as const,
    retrievalConfidence: r.confidence.score,
    shouldTransfer: policy.shouldTransfer,
    needClarify: false,
    knowledgeSearched: true,
    stepCount,
    toolCallCount,
  };
  const toRef = (i: GradedItem) => ({
    documentId: i.documentId,
    filePath: i.filePath,
    title: i.title,
    similarity: Math.round(i.similarity * 10000) / 10000,
    relevanceLevel: i.relevanceLevel,
    fileName: i.fileName ?? null,
    page: i.page ?? null,
    pageEnd: i.pageEnd ?? null,
    section: i.section ?? null,
  });
  switch (policy.action) {
    case 'legitimate_exit':
      if (llmAnswer !== null && ctx.trace.agent) ctx.trace.agent.answerOverridden = true;
      return { ...base, reply: notFoundText(ctx.lang), references: [], notFound: true };
    case 'already_provided': {
      // The knowledge base covered the question in an earlier turn: the session keeps the references the
      // reply points back to (coverage must not count it as a knowledge gap); the reply quotes none of them.
      const pointedTo: LookupResultItem[] = withheld.slice(0, 3);
      const carried = carriedReferences(pointedTo, ctx.cited);
      ctx.trace.carriedReferences = carried.map((c) => c.filePath);
      return { ...base, reply: alreadyProvidedText(ctx.lang, pointedTo), references: [], carriedReferences: carried };
    }
    case 'answer':
    case 'answer_with_caveat': {
      if (llmAnswer !== null) {
        const cited = selectChunks(items, MAX_CITED) as GradedItem[];
        const reply = [caveat ? caveatText(ctx.lang, caveat) : null, llmAnswer, sourcesBlock(ctx.lang, cited)].filter((x): x is string => !!x).join('\n\n');
        return { ...base, reply, references: cited.map(toRef) };
      }
      const composed = composeExtractiveAnswer(ctx.lang, ctx.message, items, { caveat });
      // The composer returns the items it used (the same objects): a file's several sections stay apart.
      const used = new Set<unknown>(composed.used);
      return { ...base, reply: composed.text, references: items.filter((i) => used.has(i)).map(toRef) };
    }
  }
}
