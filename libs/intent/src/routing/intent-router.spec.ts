import { describe, expect, it } from '@jest/globals';
import { bestDeadline } from '@arbiter/testing';
import { IntentRouter } from './intent-router.js';
import type { IntentJudgeClient, JudgeAnswer, JudgeCandidate } from './llm-judge.js';
import type { TextEmbedder } from './semantic-matcher.js';
import { config, rule } from './testing/fixtures.js';

/** Mode-A vectors make the semantic scores exact: a = x axis, b = y axis. */
const VECTORS: Record<string, number[]> = {
  'clear a': [1, 0, 0],
  gray: [0.5, 0, Math.sqrt(0.75)],
  multi: [0.7, 0.65, Math.sqrt(1 - 0.49 - 0.4225)],
  'alpha conflict': [0, 0.95, Math.sqrt(1 - 0.9025)],
  'alpha agrees': [1, 0, 0],
  nothing: [0, 0, 1],
};
const embedder = (delayMs = 0): TextEmbedder => ({
  dimension: 3,
  embed: async (text) => {
    if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
    return VECTORS[text] ?? [0, 0, 1];
  },
});
const rules = [
  rule({ id: 'RA', intent: 'a', description: 'intent A', keywords: ['alpha'], intentVector: [1, 0, 0] }),
  rule({ id: 'RB', intent: 'b', intentVector: [0, 1, 0] }),
];

class FakeJudge implements IntentJudgeClient {
  calls: { message: string; candidates: JudgeCandidate[] }[] = [];
  constructor(private readonly answer: (c: JudgeCandidate[]) => Promise<JudgeAnswer>) {}
  judge(message: string, candidates: JudgeCandidate[]): Promise<JudgeAnswer> {
    this.calls.push({ message, candidates });
    return this.answer(candidates);
  }
}
const answering = (): FakeJudge => new FakeJudge(async (c) => ({ intent: c[c.length - 1].intent, confidence: 0.9, tokens: 42 }));

describe('IntentRouter', () => {
  const cases: [string, string, string | null, string, boolean, string | undefined][] = [
    ['rule hit without conflict', 'alpha agrees', 'a', 'rule_high_confidence', false, undefined],
    ['semantic above threshold', 'clear a', 'a', 'semantic_override', false, undefined],
    ['nothing similar', 'nothing', null, 'no_match', false, undefined],
    ['gray zone → judge', 'gray', 'a', 'llm_judge', true, 'gray_zone'],
    ['multi-intent → judge', 'multi', 'b', 'llm_judge', true, 'multi_intent'],
    ['rule/semantic conflict → judge', 'alpha conflict', 'b', 'llm_judge', true, 'conflict'],
  ];
  it.each(cases)('%s', async (_n, message, intent, reason, judged, trigger) => {
    const judge = answering();
    const router = IntentRouter.compile(rules, { embedder: embedder(), judge });
    const res = await router.route(message, config());
    expect(res.finalIntent).toBe(intent);
    expect(res.decisionReason).toBe(reason);
    expect(judge.calls).toHaveLength(judged ? 1 : 0);
    expect(res.routeTrace.llmJudge.triggered).toBe(judged);
    expect(res.routeTrace.llmJudge.triggerReason).toBe(trigger);
    expect(res.routeTrace.fusion.decisionReason).toBe(reason);
    expect(res.routeTrace.fusion.finalConfidence).toBe(res.finalConfidence);
  });

  it('records judge intent, score, tokens and duration, and sends candidates with descriptions', async () => {
    const judge = answering();
    const res = await IntentRouter.compile(rules, { embedder: embedder(), judge }).route('alpha conflict', config());
    expect(judge.calls[0].candidates).toEqual([{ intent: 'a', description: 'intent A' }, { intent: 'b' }]);
    expect(res.routeTrace.llmJudge).toMatchObject({ triggered: true, intent: 'b', score: 0.9, tokens: 42 });
    expect(res.routeTrace.llmJudge.durationMs).toBeGreaterThanOrEqual(0);
    expect(res.routeTrace.fusion.effectiveWeights).toEqual({ rule: 0.5, semantic: 0.3, llm: 0.2 });
    expect(res.routeTrace.ruleMatch).toMatchObject({ ruleId: 'RA', matchType: 'keyword', matchedText: 'alpha', score: 1 });
    expect(res.routeTrace.semanticMatch.topCandidates[0]).toMatchObject({ intent: 'b', source: 'vector' });
  });

  it('never calls a disabled judge and falls back to the fusion top', async () => {
    const judge = answering();
    const res = await IntentRouter.compile(rules, { embedder: embedder(), judge }).route('gray', config({ llmJudgeEnabled: false }));
    expect(judge.calls).toHaveLength(0);
    expect(res).toMatchObject({ finalIntent: 'a', decisionReason: 'fusion_fallback', finalConfidence: 0.5 });
    expect(res.routeTrace.llmJudge).toEqual({ triggered: true, triggerReason: 'gray_zone', triggerReasons: ['gray_zone'], skipped: 'disabled' });
  });

  it('falls back to the rule + semantic fusion when the judge fails: the keyword rule keeps its intent', async () => {
    const judge = new FakeJudge(() => Promise.reject(new Error('boom')));
    const res = await IntentRouter.compile(rules, { embedder: embedder(), judge }).route('alpha conflict', config());
    expect(res.decisionReason).toBe('fusion_fallback');
    expect(res.finalIntent).toBe('a'); // rule 0.5 / 0.8 = 0.625 beats semantic b 0.3·0.95 / 0.8 = 0.356
    expect(res.ruleId).toBe('RA');
    expect(res.finalConfidence).toBeCloseTo(0.625, 6);
    expect(res.routeTrace.llmJudge.error).toBe('boom');
    expect(res.needClarify).toBe(false);
    expect(res.routeTrace.fusion.decisionReason).toBe('fusion_fallback');
  });

  it('falls back when the judge exceeds llmJudgeTimeoutMs, within 10% of it', async () => {
    const judge = new FakeJudge(() => new Promise<JudgeAnswer>(() => undefined));
    const router = IntentRouter.compile(rules, { embedder: embedder(), judge });
    let res: Awaited<ReturnType<typeof router.route>> | undefined;
    // Late by < 30 ms after a reference timer of the same 300 ms (load-robust, docs/CONVENTIONS.md "Test tiers").
    const { elapsedMs, lateByMs } = await bestDeadline(300, async () => {
      res = await router.route('gray', config({ llmJudgeTimeoutMs: 300 }));
    });
    expect(res?.decisionReason).toBe('fusion_fallback');
    expect(res?.routeTrace.llmJudge.error).toMatch(/timeout/);
    expect(elapsedMs).toBeGreaterThanOrEqual(295);
    expect(lateByMs).toBeLessThan(30);
  });

  it('skips a slow semantic path after semanticMatcherTimeoutMs and still routes by rule', async () => {
    const router = IntentRouter.compile(rules, { embedder: embedder(200) });
    let res: Awaited<ReturnType<IntentRouter['route']>> | undefined;
    const { lateByMs } = await bestDeadline(30, async () => {
      res = await router.route('alpha agrees', config({ semanticMatcherTimeoutMs: 30 }));
    });
    expect(lateByMs).toBeLessThan(60);
    expect(res?.routeTrace.semanticMatch.skipped).toBe('timeout');
    expect(res).toMatchObject({ finalIntent: 'a', decisionReason: 'rule_high_confidence', finalConfidence: 1 });
  });

  it('uses a semantic result that has arrived even when computing it overran the budget (a pause of this thread)', async () => {
    // The embedder answers only after holding the thread for 60 ms, as a garbage collection or a starved core would:
    // the budget's timer cannot fire meanwhile, and once the result is there its time is spent.
    const pausing: TextEmbedder = {
      dimension: 3,
      embed: (text) => {
        const until = performance.now() + 60;
        while (performance.now() < until);
        return Promise.resolve(VECTORS[text] ?? [0, 0, 1]);
      },
    };
    const res = await IntentRouter.compile(rules, { embedder: pausing }).route('clear a', config({ semanticMatcherTimeoutMs: 20, llmJudgeEnabled: false }));
    expect(res.routeTrace.semanticMatch.skipped).toBeUndefined();
    expect(res.routeTrace.semanticMatch.durationMs).toBeGreaterThanOrEqual(60);
    expect(res.routeTrace.semanticMatch.topCandidates[0]).toMatchObject({ intent: 'a', score: 1 });
    expect(res).toMatchObject({ finalIntent: 'a', decisionReason: 'semantic_override' });
  });

  it('skips the semantic path when disabled, with the reason in the trace', async () => {
    const res = await IntentRouter.compile(rules, { embedder: embedder() }).route('clear a', config({ semanticMatcherEnabled: false }));
    expect(res.routeTrace.semanticMatch).toEqual({ topCandidates: [], durationMs: 0, skipped: 'disabled' });
    expect(res.decisionReason).toBe('no_match');
  });

  it('asks for clarification in the band, with candidates', async () => {
    const router = IntentRouter.compile([rule({ intent: 'x', intentVector: [1, 0, 0] })], { embedder: embedder() });
    const res = await router.route('gray', config({ llmJudgeEnabled: false, clarifyThreshold: 0.55 }));
    expect(res).toMatchObject({ finalIntent: 'x', needClarify: true, candidates: [{ intent: 'x', confidence: 0.5 }] });
  });

  it('routes each tenant only over its own rules', async () => {
    const t1 = IntentRouter.compile([rule({ intent: 'refund', keywords: ['refund'] })]);
    const t2 = IntentRouter.compile([rule({ intent: 'weather', keywords: ['weather'] })]);
    expect((await t1.route('refund please', config())).finalIntent).toBe('refund');
    expect((await t2.route('refund please', config())).finalIntent).toBeNull();
    expect(t2.rule(t1.ruleMatcher.match('refund')?.ruleId ?? '')).toBeUndefined();
  });
});

describe('IntentRouter with a calibration', () => {
  const calibration = { method: 'isotonic' as const, x: [0, 1], y: [0, 0.5], samples: 10 };
  const router = IntentRouter.compile(rules, { embedder: embedder() });

  it('reports the calibrated probability for a named intent and keeps the fused confidence in the trace', async () => {
    const r = await router.route('clear a', config({ calibration }));
    expect(r.finalIntent).toBe('a');
    expect(r.finalConfidence).toBeCloseTo(0.5, 6);
    expect(r.routeTrace.fusion.rawConfidence).toBeCloseTo(1, 6);
    expect(r.routeTrace.fusion.finalConfidence).toBeCloseTo(0.5, 6);
  });

  it('leaves a no_match alone', async () => {
    const r = await router.route('nothing', config({ calibration }));
    expect(r.finalIntent).toBeNull();
    expect(r.routeTrace.fusion.rawConfidence).toBeUndefined();
    expect(r.finalConfidence).toBe((await router.route('nothing', config())).finalConfidence);
  });
});
