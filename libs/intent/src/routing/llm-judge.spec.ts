import { describe, expect, it } from '@jest/globals';
import { bestDeadline } from '@arbiter/testing';
import { judgeTriggers, runJudge, type IntentJudgeClient, type JudgeAnswer } from './llm-judge.js';
import { config, ruleHit, sem } from './testing/fixtures.js';
import type { JudgeTriggerReason, RuleMatchResult, SemanticCandidate } from './types.js';

describe('judgeTriggers (docs/spec/intent-routing.md, AC-118)', () => {
  const cfg = config();
  const rows: [string, RuleMatchResult | null, SemanticCandidate[], number, JudgeTriggerReason[]][] = [
    ['conflict: different intents, |1 - 0.85| < 0.2', ruleHit('a'), sem(['b', 0.85]), 0.9, ['conflict']],
    ['no conflict: gap exactly 0.2', ruleHit('a'), sem(['b', 0.8]), 0.9, []],
    ['no conflict: same intent', ruleHit('a'), sem(['a', 0.95]), 0.9, []],
    ['no conflict without a semantic candidate', ruleHit('a'), [], 1, []],
    ['gray zone: 0.3 < 0.45 < 0.6', null, sem(['a', 0.45]), 0.45, ['gray_zone']],
    ['not gray at exactly 0.3', null, sem(['a', 0.3]), 0.3, []],
    ['not gray at exactly 0.6', null, sem(['a', 0.6]), 0.6, []],
    ['multi-intent: top-2 gap 0.1 < 0.15', null, sem(['a', 0.9], ['b', 0.8]), 0.9, ['multi_intent']],
    ['not multi-intent at a gap of 0.2', null, sem(['a', 0.9], ['b', 0.7]), 0.9, []],
    ['single candidate is never multi-intent', null, sem(['a', 0.9]), 0.9, []],
    ['all three', ruleHit('a'), sem(['b', 0.85], ['c', 0.8]), 0.5, ['conflict', 'gray_zone', 'multi_intent']],
  ];
  it.each(rows)('%s', (_n, rule, semantic, best, expected) => {
    expect(judgeTriggers({ rule, semantic, bestConfidence: best }, cfg)).toEqual(expected);
  });

  it('uses the tenant thresholds', () => {
    const wide = config({ conflictThreshold: 0.6, multiIntentThreshold: 0.3 });
    expect(judgeTriggers({ rule: ruleHit('a'), semantic: sem(['b', 0.5], ['c', 0.25]), bestConfidence: 0.9 }, wide)).toEqual(['conflict', 'multi_intent']);
  });
});

describe('runJudge', () => {
  const candidates = [{ intent: 'a', description: 'A things' }, { intent: 'b' }];
  const client = (fn: (signal?: AbortSignal) => Promise<JudgeAnswer>): IntentJudgeClient => ({
    judge: (_m, _c, _t, signal) => fn(signal),
  });

  it('returns the answer with tokens and a clamped confidence', async () => {
    const out = await runJudge(
      client(async () => ({ intent: 'b', confidence: 1.4, tokens: 57 })),
      'hi',
      candidates,
      1000,
    );
    expect(out).toMatchObject({ ok: true, intent: 'b', confidence: 1, tokens: 57 });
  });

  it('passes message, candidates with descriptions and the timeout to the client', async () => {
    const calls: unknown[][] = [];
    const spy: IntentJudgeClient = {
      judge: async (...args) => {
        calls.push(args.slice(0, 3));
        return { intent: 'a', confidence: 0.7 };
      },
    };
    await runJudge(spy, 'where is my order', candidates, 1234);
    expect(calls).toEqual([['where is my order', candidates, 1234]]);
  });

  it('times out within 10% of the timeout and aborts the client signal', async () => {
    let aborted = false;
    const hanging = client(
      (signal) =>
        new Promise<JudgeAnswer>(() => {
          signal?.addEventListener('abort', () => {
            aborted = true;
          });
        }),
    );
    let out: Awaited<ReturnType<typeof runJudge>> | undefined;
    // Late by < 30 ms after a reference timer of the same 300 ms (load-robust, docs/CONVENTIONS.md "Test tiers").
    const { lateByMs } = await bestDeadline(300, async () => {
      out = await runJudge(hanging, 'hi', candidates, 300);
    });
    expect(out?.ok).toBe(false);
    if (out && !out.ok) expect(out.error).toMatch(/timeout after 300 ms/);
    expect(out?.durationMs).toBeGreaterThanOrEqual(295);
    expect(lateByMs).toBeLessThan(30);
    expect(aborted).toBe(true);
  });

  it.each([
    ['a rejected call', async (): Promise<JudgeAnswer> => Promise.reject(new Error('502 from upstream')), /502 from upstream/],
    ['an intent outside the candidates', async (): Promise<JudgeAnswer> => ({ intent: 'zzz', confidence: 0.9 }), /unknown intent "zzz"/],
    ['a missing confidence', async (): Promise<JudgeAnswer> => ({ intent: 'a', confidence: Number.NaN }), /numeric confidence/],
  ])('reports %s as a failure', async (_n, fn, message) => {
    const out = await runJudge(client(fn), 'hi', candidates, 1000);
    expect(out.ok).toBe(false);
    if (!out.ok) expect(out.error).toMatch(message);
  });
});
