import { describe, expect, it } from '@jest/globals';
import { emptyTally, replayReport, tally, REPLAY_SAMPLE_LIMIT, type DecisionOutcome, type ReplayedDecision } from './replay-report.js';

const out = (intent: string | null, reason = 'semantic_override', needClarify = false): DecisionOutcome => ({ intent, reason, needClarify, confidence: 0.8 });
const d = (id: string, before: DecisionOutcome, after: DecisionOutcome, label?: string | null): ReplayedDecision => ({
  decisionId: id,
  message: `m-${id}`,
  before,
  after,
  ...(label !== undefined ? { label } : {}),
});

describe('replay tally and report', () => {
  it('counts changes by intent and reason, keeps samples of changed decisions only, and scores labelled ones', () => {
    const t = emptyTally();
    tally(t, d('1', out('a'), out('a')), false);
    tally(t, d('2', out('a'), out('b', 'fusion_fallback')), true);
    tally(t, d('3', out('a'), out('b', 'fusion_fallback')), false);
    tally(t, d('4', out(null, 'no_match'), out('a')), false);
    tally(t, d('5', out('b'), out('b', 'semantic_override', true)), false);
    tally(t, d('6', out('a'), out('b'), 'b'), false);
    tally(t, d('7', out('a'), out('a'), 'a'), false);
    tally(t, d('8', out('a'), out(null, 'no_match'), null), false);
    const r = replayReport(JSON.parse(JSON.stringify(t)) as typeof t); // survives the checkpoint round trip
    expect(r).toMatchObject({ total: 8, changed: 6, intentChanged: 5, clarifyChanged: 1, judgeWouldRun: 1 });
    expect(r.transitions).toEqual([
      { from: 'a', to: 'b', count: 3 },
      { from: null, to: 'a', count: 1 },
      { from: 'a', to: null, count: 1 },
    ]);
    expect(r.reasonTransitions[0]).toEqual({ from: 'semantic_override', to: 'fusion_fallback', count: 2 });
    expect(r.byIntent[0]).toEqual({ intent: 'a', total: 6, changed: 4 });
    expect(r.samples.map((s) => s.decisionId)).toEqual(['2', '3', '4', '5', '6', '8']);
    expect(r.labelled).toEqual({ total: 3, accuracyBefore: 1 / 3, accuracyAfter: 1 });
  });

  it('reports zero counts for an empty replay and caps the samples', () => {
    expect(replayReport(emptyTally())).toMatchObject({ total: 0, changed: 0, transitions: [], samples: [], labelled: { total: 0, accuracyBefore: null } });
    const t = emptyTally();
    for (let i = 0; i < 50; i++) tally(t, d(String(i), out('a'), out('b')), false);
    expect(replayReport(t).samples).toHaveLength(REPLAY_SAMPLE_LIMIT);
  });
});
