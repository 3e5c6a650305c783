/**
 * Judge benchmark (issue 3, item 3): with the fake OpenAI server and the real langchain judge client,
 * route a set that triggers each condition (conflict, gray_zone, multi_intent) plus sets that trigger
 * none; check the judge is called exactly for triggered requests, that its timeout holds within 10 % of
 * llmJudgeTimeoutMs, and that a failure yields fusion_fallback. Run: `npm run bench:intent:judge`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { MetricsService } from '@arbiter/common';
import { AppConfig, validateEnvironment } from '@arbiter/config';
import {
  DEFAULT_INTENT_CONFIG,
  IntentRouter,
  LlmJudgeClient,
  mergeIntentConfig,
  type IntentConfig,
  type IntentRuleDef,
  type RouteResult,
} from '@arbiter/intent';
import { LlmService } from '@arbiter/llm';
import { FakeOpenAiServer } from '@arbiter/testing';

const rule = (id: string, intent: string, keywords: string[], semanticExamples: string[]): IntentRuleDef => ({
  id,
  intent,
  description: intent,
  keywords,
  patterns: [],
  semanticExamples,
  priority: 0,
  enabled: true,
  action: 'knowledge',
  confidenceProfile: 'search',
});
const RULES = [
  rule(
    'r-reset',
    'reset',
    ['reset'],
    ['reset the arm', 'how do I reset the robot', 'factory reset the controller', 'restart the robot arm', 'reboot the arm controller'],
  ),
  rule(
    'r-power',
    'power',
    ['power'],
    ['the arm does not power on', 'no power to the controller', 'the arm will not turn on', 'power supply failure', 'the power light is off'],
  ),
  rule(
    'r-refund',
    'refund',
    ['refund'],
    ['I want a refund', 'return my order for my money', 'give me my money back', 'cancel the order and refund', 'where is my refund'],
  ),
];

interface Case {
  name: string;
  message: string;
  config: Partial<IntentConfig>;
  /** The trigger that must fire, or null when the judge must not be called. */
  expect: 'conflict' | 'gray_zone' | 'multi_intent' | null;
}
const CASES: Case[] = [
  { name: 'conflict', message: 'reset: the arm will not turn on, no power light', config: { conflictThreshold: 1 }, expect: 'conflict' },
  {
    name: 'gray_zone',
    message: 'the arm will not turn on',
    config: { semanticThreshold: 1, grayZoneThreshold: 1, minTriggerThreshold: 0, multiIntentThreshold: 0 },
    expect: 'gray_zone',
  },
  {
    name: 'multi_intent',
    message: 'the arm will not turn on',
    config: { semanticThreshold: 1, multiIntentThreshold: 1, grayZoneThreshold: 0, minTriggerThreshold: 0 },
    expect: 'multi_intent',
  },
  { name: 'rule hit, no conflict', message: 'reset the arm', config: { conflictThreshold: 0 }, expect: null },
  { name: 'no match', message: 'zebra quantum violin', config: { minTriggerThreshold: 0.99, semanticThreshold: 1 }, expect: null },
];

const percentile = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? NaN;
};

async function main(): Promise<void> {
  const fake = new FakeOpenAiServer();
  const baseUrl = await fake.start();
  const llm = new LlmService(
    new AppConfig(validateEnvironment({ LLM_PROVIDER: 'openai', LLM_BASE_URL: baseUrl, LLM_API_KEY: 'bench', LLM_MODEL: 'judge' })),
    new MetricsService(),
  );
  const router = IntentRouter.compile(RULES, { judge: new LlmJudgeClient(llm, 'bench') });
  await router.trainClassifier();
  const cfg = (over: Partial<IntentConfig>): IntentConfig =>
    mergeIntentConfig(DEFAULT_INTENT_CONFIG, { semanticMatcherTimeoutMs: 5_000, llmJudgeTimeoutMs: 5_000, ...over });
  const calls = (): number => fake.chatRequests().length;

  // 1. Exactly the triggered requests call the judge.
  fake.setChatHandler(() => ({ kind: 'content', content: '{"intent": "power", "confidence": 0.9}', usage: { promptTokens: 80, completionTokens: 12 } }));
  const perCase: Record<string, { requests: number; triggered: number; judgeCalls: number; expectedTriggerSeen: number; decisions: Record<string, number> }> =
    {};
  let mismatches = 0;
  for (const c of CASES) {
    const stats = { requests: 0, triggered: 0, judgeCalls: 0, expectedTriggerSeen: 0, decisions: {} as Record<string, number> };
    for (let i = 0; i < 20; i++) {
      const before = calls();
      const result: RouteResult = await router.route(c.message, cfg(c.config));
      const called = calls() - before;
      const judge = result.routeTrace.llmJudge;
      stats.requests++;
      stats.judgeCalls += called;
      if (judge.triggered) stats.triggered++;
      if (called !== (judge.triggered ? 1 : 0)) mismatches++;
      const reasons = String(judge.triggerReason ?? '');
      if (c.expect ? judge.triggered && reasons.includes(c.expect) : !judge.triggered) stats.expectedTriggerSeen++;
      stats.decisions[result.decisionReason] = (stats.decisions[result.decisionReason] ?? 0) + 1;
    }
    perCase[c.name] = stats;
  }

  // 2. The timeout holds within 10 %: the judge answers after 5 s, the route must give up at the timeout.
  fake.setChatHandler(() => ({ kind: 'content', content: '{"intent": "power", "confidence": 0.9}', delayMs: 5_000 }));
  const timeouts: Record<string, { p50ErrorPct: number; maxErrorPct: number; within10pct: string; fallbacks: number }> = {};
  for (const timeoutMs of [200, 500, 1000]) {
    const errors: number[] = [];
    let fallbacks = 0;
    for (let i = 0; i < 10; i++) {
      const result = await router.route('the arm will not turn on', cfg({ ...CASES[1]!.config, llmJudgeTimeoutMs: timeoutMs }));
      errors.push((Math.abs((result.routeTrace.llmJudge.durationMs ?? 0) - timeoutMs) / timeoutMs) * 100);
      if (result.decisionReason === 'fusion_fallback') fallbacks++;
    }
    timeouts[`${timeoutMs} ms`] = {
      p50ErrorPct: +percentile(errors, 50).toFixed(1),
      maxErrorPct: +Math.max(...errors).toFixed(1),
      within10pct: `${errors.filter((e) => e <= 10).length}/10`,
      fallbacks,
    };
  }

  // 3. Failures (HTTP 500, malformed body, garbage content) → fusion_fallback.
  const failures: Record<string, string> = {};
  for (const [name, reply] of [
    ['http 500', { kind: 'error', status: 500 }],
    ['malformed body', { kind: 'malformed' }],
    ['not JSON', { kind: 'content', content: 'I think it is about power.' }],
  ] as const) {
    fake.setChatHandler(() => reply);
    const result = await router.route('the arm will not turn on', cfg(CASES[1]!.config));
    failures[name] = `${result.decisionReason}${result.routeTrace.llmJudge.error ? ' (error recorded)' : ''}`;
  }
  await fake.stop();

  const exact = mismatches === 0;
  const triggersOk = Object.values(perCase).every((s) => s.expectedTriggerSeen === s.requests);
  const timeoutOk = Object.values(timeouts).every((t) => t.within10pct === '10/10');
  const failuresOk = Object.values(failures).every((f) => f.startsWith('fusion_fallback'));
  const report = {
    perCase,
    mismatches,
    timeouts,
    failures,
    bars: {
      judgeCalledExactlyWhenTriggered: exact,
      eachConditionTriggered: triggersOk,
      timeoutWithin10pct: timeoutOk,
      failureYieldsFusionFallback: failuresOk,
    },
  };
  console.log('| case | requests | triggered | judge calls | expected trigger seen | decisions |\n|---|---|---|---|---|---|');
  for (const [name, s] of Object.entries(perCase))
    console.log(`| ${name} | ${s.requests} | ${s.triggered} | ${s.judgeCalls} | ${s.expectedTriggerSeen} | ${JSON.stringify(s.decisions)} |`);
  console.log('\ntimeouts:', JSON.stringify(timeouts), '\nfailures:', JSON.stringify(failures), '\nbars:', JSON.stringify(report.bars));
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(`bench/results/intent-judge-${new Date().toISOString().replace(/[:.]/g, '-')}.json`, JSON.stringify(report, null, 2));
  process.exit(exact && triggersOk && timeoutOk && failuresOk ? 0 : 1);
}

await main();
