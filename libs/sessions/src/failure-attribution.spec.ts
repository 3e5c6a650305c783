import { describe, expect, it } from '@jest/globals';
import {
  FAILURE_LAYERS,
  FAILURE_RULES,
  addAttribution,
  attributeFailure,
  dominantLayer,
  emptyLayerCounts,
  factsFromRow,
  type FailureFacts,
  type FailureFactsRow,
} from './failure-attribution.js';

const base: FailureFacts = {
  runFailed: false,
  feedback: 'not_useful',
  coverageReason: 'covered_has_references',
  decisionReason: 'rule_high_confidence',
  needClarify: false,
  routingConfidenceLow: false,
  branch: 'knowledge',
  labelDisagrees: false,
  knowledgeSearched: true,
  hasReferences: true,
  lookedUp: true,
  lookupFailed: false,
  gradeSufficient: true,
  gradePartial: false,
  saidNoAnswer: false,
};
const f = (patch: Partial<FailureFacts>): FailureFacts => ({ ...base, ...patch });

describe('attributeFailure', () => {
  it.each([
    // routing
    ['a label names another intent, all else fine', f({ labelDisagrees: true }), 'routing', 'labelled_other_intent'],
    ['label beats a failed lookup (upstream first)', f({ labelDisagrees: true, lookupFailed: true }), 'routing', 'labelled_other_intent'],
    ['the router asked to clarify', f({ needClarify: true, branch: 'clarify', lookedUp: false, knowledgeSearched: false }), 'routing', 'clarify'],
    ['clarify branch without the flag', f({ branch: 'clarify' }), 'routing', 'clarify'],
    ['no_match, yet the knowledge base had a relevant answer', f({ decisionReason: 'no_match', routingConfidenceLow: true }), 'routing', 'no_match_answerable'],
    ['routed with low confidence', f({ routingConfidenceLow: true }), 'routing', 'low_routing_confidence'],
    // retrieval
    ['a lookup failed', f({ lookupFailed: true, gradeSufficient: false, hasReferences: false }), 'retrieval', 'lookup_failed'],
    [
      'best grade REFERENCE/PARTIAL',
      f({ gradeSufficient: false, gradePartial: true, hasReferences: false, coverageReason: 'uncovered_no_references' }),
      'retrieval',
      'low_grade',
    ],
    // knowledge gap
    [
      'every lookup INSUFFICIENT',
      f({ gradeSufficient: false, hasReferences: false, coverageReason: 'uncovered_no_references', saidNoAnswer: true }),
      'knowledge_gap',
      'nothing_relevant',
    ],
    [
      'no_match and nothing relevant: a gap, not routing',
      f({ decisionReason: 'no_match', routingConfidenceLow: true, gradeSufficient: false, hasReferences: false }),
      'knowledge_gap',
      'nothing_relevant',
    ],
    [
      'searched, no references, no lookup recorded (ingested session)',
      f({ lookedUp: false, gradeSufficient: false, hasReferences: false, branch: null }),
      'knowledge_gap',
      'no_references',
    ],
    [
      'coverage says uncovered_no_references',
      f({ lookedUp: false, gradeSufficient: false, coverageReason: 'uncovered_no_references' }),
      'knowledge_gap',
      'no_references',
    ],
    // answer generation
    [
      'sufficient references, the reply says it has no answer',
      f({ saidNoAnswer: true, coverageReason: 'uncovered_explicit_no_answer' }),
      'answer_generation',
      'said_no_answer',
    ],
    [
      'no search, the reply says it has no answer',
      f({ lookedUp: false, knowledgeSearched: false, hasReferences: false, gradeSufficient: false, saidNoAnswer: true }),
      'answer_generation',
      'said_no_answer',
    ],
    ['run failed after a good lookup', f({ runFailed: true, hasReferences: false }), 'answer_generation', 'run_failed'],
    [
      'a verified case answered, not useful',
      f({ branch: 'case_library', lookedUp: false, knowledgeSearched: false, hasReferences: false, gradeSufficient: false }),
      'answer_generation',
      'case_answer_not_useful',
    ],
    [
      'a rule reply, not useful',
      f({ branch: 'rule_answer', lookedUp: false, knowledgeSearched: false, hasReferences: false, gradeSufficient: false }),
      'answer_generation',
      'configured_reply_not_useful',
    ],
    [
      'a hand-off, not useful',
      f({ branch: 'transfer', lookedUp: false, knowledgeSearched: false, hasReferences: false, gradeSufficient: false }),
      'answer_generation',
      'configured_reply_not_useful',
    ],
    ['sufficient references, user said not useful', base, 'answer_generation', 'answer_not_useful'],
    [
      'nothing known at all',
      f({ branch: null, decisionReason: null, lookedUp: false, knowledgeSearched: false, hasReferences: false, gradeSufficient: false, coverageReason: null }),
      'answer_generation',
      'unexplained',
    ],
  ] as const)('%s', (_name, facts, layer, reason) => {
    expect(attributeFailure(facts)).toEqual({ layer, reason });
  });

  it('every rule is reachable and the last one catches everything', () => {
    const reasons = new Set(FAILURE_RULES.map((r) => r.reason));
    expect(reasons.size).toBe(FAILURE_RULES.length);
    expect(FAILURE_RULES.at(-1)?.reason).toBe('unexplained');
    expect(new Set(FAILURE_RULES.map((r) => r.layer))).toEqual(new Set(FAILURE_LAYERS));
  });
});

describe('counts and dominant layer', () => {
  it('adds groups with their counts, zeros included', () => {
    const c = emptyLayerCounts();
    addAttribution(c, base, 3);
    addAttribution(c, f({ labelDisagrees: true }));
    expect(c.byLayer).toEqual({ routing: 1, retrieval: 0, knowledge_gap: 0, answer_generation: 3 });
    expect(c.byReason.answer_not_useful).toBe(3);
    expect(c.byReason.labelled_other_intent).toBe(1);
    expect(c.byReason.lookup_failed).toBe(0);
  });

  it('dominant layer: the most frequent, ties upstream, null when empty', () => {
    expect(dominantLayer({ routing: 0, retrieval: 2, knowledge_gap: 5, answer_generation: 1 })).toBe('knowledge_gap');
    expect(dominantLayer({ routing: 0, retrieval: 2, knowledge_gap: 2, answer_generation: 2 })).toBe('retrieval');
    expect(dominantLayer({ routing: 0, retrieval: 0, knowledge_gap: 0, answer_generation: 0 })).toBeNull();
  });
});

describe('factsFromRow', () => {
  it('reads the SQL projection; unknown feedback and nulls read as absent', () => {
    const row: FailureFactsRow = {
      ff_run_failed: false,
      ff_feedback: 'weird',
      ff_coverage_reason: null,
      ff_decision_reason: 'no_match',
      ff_need_clarify: false,
      ff_routing_low: true,
      ff_branch: null,
      ff_label_disagrees: false,
      ff_knowledge_searched: true,
      ff_has_references: false,
      ff_looked_up: true,
      ff_lookup_failed: false,
      ff_grade_sufficient: true,
      ff_grade_partial: false,
      ff_said_no_answer: false,
    };
    const facts = factsFromRow(row);
    expect(facts.feedback).toBeNull();
    expect(attributeFailure(facts)).toEqual({ layer: 'routing', reason: 'no_match_answerable' });
  });
});
