import { describe, expect, it } from '@jest/globals';
import { confidenceEventOf, decideAnswerPolicy, type PolicyDecision, type PolicyInput } from './confidence-policy.js';

const base: PolicyInput = { relevanceLevel: 'REFERENCE', completenessHint: 'PARTIAL', confidenceLevel: 'high', resultCount: 3, dedupReason: null };

describe('decideAnswerPolicy (docs/spec/evaluation.md §3)', () => {
  const table: [string, Partial<PolicyInput>, PolicyDecision][] = [
    ['reference + high → answer', {}, { action: 'answer', reason: 'high_confidence', shouldTransfer: false }],
    ['reference + medium → caveat', { confidenceLevel: 'medium' }, { action: 'answer_with_caveat', reason: 'medium_confidence', shouldTransfer: false }],
    ['reference + low → exit + transfer', { confidenceLevel: 'low' }, { action: 'legitimate_exit', reason: 'low_confidence', shouldTransfer: true }],
    ['PRECISE + high → answer', { relevanceLevel: 'PRECISE', completenessHint: null }, { action: 'answer', reason: 'strong_relevance', shouldTransfer: false }],
    [
      'PRECISE + low → still answered, without a caveat (brief §4.3, 2026-12-01)',
      { relevanceLevel: 'PRECISE', completenessHint: null, confidenceLevel: 'low' },
      { action: 'answer', reason: 'strong_relevance_low_score', shouldTransfer: false },
    ],
    [
      'HIGHLY_RELEVANT + medium → answered without a caveat',
      { relevanceLevel: 'HIGHLY_RELEVANT', completenessHint: null, confidenceLevel: 'medium' },
      { action: 'answer', reason: 'strong_relevance_low_score', shouldTransfer: false },
    ],
    [
      'INSUFFICIENT + high → always the exit',
      { completenessHint: 'INSUFFICIENT', confidenceLevel: 'high' },
      { action: 'legitimate_exit', reason: 'insufficient_hint', shouldTransfer: true },
    ],
    ['no result → exit', { resultCount: 0, completenessHint: 'PARTIAL' }, { action: 'legitimate_exit', reason: 'no_results', shouldTransfer: true }],
    [
      'all deduplicated → point back',
      { resultCount: 0, dedupReason: 'doc_retrieved' },
      { action: 'already_provided', reason: 'deduplicated', shouldTransfer: false },
    ],
    [
      'PRECISE but its exact hits were given earlier → point back',
      { relevanceLevel: 'PRECISE', completenessHint: null, strongResultReturned: false },
      { action: 'already_provided', reason: 'strong_results_already_given', shouldTransfer: false },
    ],
    [
      'PRECISE with its exact hit returned → answer',
      { relevanceLevel: 'PRECISE', completenessHint: null, strongResultReturned: true },
      { action: 'answer', reason: 'strong_relevance', shouldTransfer: false },
    ],
    [
      'domain withheld → point back',
      { resultCount: 0, dedupReason: 'domain_retrieved', completenessHint: 'INSUFFICIENT' },
      { action: 'already_provided', reason: 'deduplicated', shouldTransfer: false },
    ],
  ];
  it.each(table)('%s', (_name, patch, expected) => {
    expect(decideAnswerPolicy({ ...base, ...patch })).toEqual(expected);
  });

  it('maps levels to events', () => {
    expect(['high', 'medium', 'low'].map((l) => confidenceEventOf(l as 'high'))).toEqual(['high-confidence', 'medium-confidence', 'low-confidence']);
  });
});
