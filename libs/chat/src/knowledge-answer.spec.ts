import { describe, expect, it } from '@jest/globals';
import type { LookupResult, LookupResultItem } from '@arbiter/retrieval';
import type { DiagnosisSessionEntity } from '@arbiter/sessions';
import type { TenantId } from '@arbiter/common';
import { newTurnContext, type LookupRecord } from './chat-turn.js';
import { answerFromLookups, answerPreamble } from './knowledge-answer.js';

const doc = (filePath: string, relevance: number): LookupResultItem => ({
  documentId: `id-${filePath}`,
  filePath,
  title: filePath,
  domain: 'd',
  content: 'Power off the arm first. Then check the cable.',
  distance: 0,
  similarity: relevance,
  relevance,
  matches: 1,
  source: 'L1',
  fileName: null,
  page: null,
  pageEnd: null,
  section: null,
});

const record = (opts: {
  level: 'PRECISE' | 'HIGHLY_RELEVANT' | 'REFERENCE';
  confidence: 'high' | 'medium' | 'low';
  hint?: 'INSUFFICIENT' | null;
  items?: LookupResultItem[];
  withheld?: LookupResultItem[];
}): LookupRecord => {
  const items = opts.items ?? [doc('a.md', 0.55)];
  const withheld = opts.withheld ?? [];
  const result = {
    results: [...items, ...withheld],
    relevanceLevel: opts.level,
    completenessHint: opts.hint ?? null,
    l0MatchCount: 0,
    l1TopSimilarity: null,
    domain: null,
    retrievedDomainsThisSession: [],
    dedupReason: null,
    confidence: {
      score: 0.5,
      level: opts.confidence,
      reasons: [],
      event: 'medium-confidence',
      profile: null,
      components: { countScore: 0, qualityScore: 0, scenarioScore: 0 },
    },
  } as unknown as LookupResult;
  return { args: { query: 'q' }, result, items, withheld, durationMs: 1 };
};

const context = () =>
  newTurnContext({
    tenantId: 't' as TenantId,
    session: { id: 's', conversationId: 'c' } as DiagnosisSessionEntity,
    message: 'How do I clear E201?',
    lang: 'en',
    continued: false,
    deadline: new AbortController().signal,
    mode: 'llm',
  });

const MODEL = 'Power off the arm, then check the cable.';

describe('answerPreamble: may the model answer stream as it comes? (the same decision as answerFromLookups)', () => {
  it.each<[string, LookupRecord[], boolean, boolean]>([
    ['no lookup: the answer is not trusted', [], false, false],
    ['a precise lookup answers', [record({ level: 'PRECISE', confidence: 'low' })], true, false],
    ['high confidence answers', [record({ level: 'REFERENCE', confidence: 'high' })], true, false],
    ['medium confidence answers after the caveat', [record({ level: 'REFERENCE', confidence: 'medium' })], true, true],
    ['low confidence: not found', [record({ level: 'REFERENCE', confidence: 'low' })], false, false],
    ['insufficient: not found', [record({ level: 'PRECISE', confidence: 'high', hint: 'INSUFFICIENT' })], false, false],
    ['everything cited earlier: already provided', [record({ level: 'PRECISE', confidence: 'high', items: [], withheld: [doc('a.md', 0.9)] })], false, false],
  ])('%s', (_name, records, streams, caveat) => {
    const preamble = answerPreamble('en', records);
    expect(preamble.stream).toBe(streams);
    if (!records.length) return;
    const reply = answerFromLookups(context(), records, MODEL, 2, 1).reply;
    if (preamble.stream) {
      // What streams (prefix + the model's answer) is where the reply begins.
      expect(reply.startsWith(preamble.prefix + MODEL)).toBe(true);
      expect(preamble.prefix.length > 0).toBe(caveat);
    } else {
      expect(reply).not.toContain(MODEL);
    }
  });
});
