/**
 * Intent routing speed at CLINC150 scale: 150 intents / 15,000 examples + 1,000 keyword/regex rules in
 * one tenant, in-process. Reports p50/p95/p99 per path and total (judge off), build/train time and
 * RSS per 10,000 examples. Env: DATASETS_DIR, QUERIES (default: all 5,500 CLINC150 test texts).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { DEFAULT_INTENT_CONFIG, IntentRouter, mergeIntentConfig, SEMANTIC_AGGREGATIONS, type IntentRuleDef } from './core.js';
import { readJsonl, rulesFromRows, type Row } from './datasets.js';
import { round } from './protocol.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function memory(): { rss: number; live: number } {
  gc();
  gc();
  const m = process.memoryUsage();
  return { rss: m.rss, live: m.heapUsed + m.arrayBuffers };
}

function percentiles(xs: number[]): { p50: number; p95: number; p99: number; max: number } {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number): number => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { p50: round(at(0.5), 3), p95: round(at(0.95), 3), p99: round(at(0.99), 3), max: round(s[s.length - 1], 3) };
}

/**
 * 1,000 synthetic operator rules over the corpus vocabulary: one single-word keyword (6+ letters, so a
 * realistic share of queries hits a rule), one two-word keyword, and every third rule two regexes.
 */
function syntheticRules(texts: readonly string[], n: number): IntentRuleDef[] {
  const vocab = [...new Set(texts.flatMap((t) => t.toLowerCase().match(/[a-z]{4,}/g) ?? []))].sort();
  const long = vocab.filter((w) => w.length >= 6);
  let s = 12345;
  const pick = (from: readonly string[] = vocab): string => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return from[s % from.length];
  };
  return Array.from({ length: n }, (_, i) => ({
    id: `op-${i}`,
    intent: `op_intent_${i % 200}`,
    keywords: [pick(long), `${pick()} ${pick()}`],
    patterns: i % 3 === 0 ? [`\\b${pick()}\\s+(?:my|the|a)\\s+${pick()}\\b`, `(?:order|ticket)\\s*#?\\d{${4 + (i % 5)},}`] : [],
    semanticExamples: [],
    priority: i % 10,
    enabled: true,
    action: 'knowledge',
    confidenceProfile: 'search',
  }));
}

/** First `perIntent` training rows of every intent. */
function subset(rows: readonly Row[], perIntent: number): Row[] {
  const seen = new Map<string, number>();
  return rows.filter((r) => {
    const n = seen.get(r.intent) ?? 0;
    seen.set(r.intent, n + 1);
    return n < perIntent;
  });
}

/** Child-process probe: RSS/live memory of one tenant of `perIntent` examples per intent (compiled + trained). */
async function memoryProbe(perIntent: number): Promise<void> {
  const rules = rulesFromRows(
    subset(
      readJsonl('clinc150', 'train.jsonl').filter((r) => r.intent !== 'oos'),
      perIntent,
    ),
  );
  const before = memory();
  const router = IntentRouter.compile(rules);
  await router.trainClassifier();
  const after = memory();
  console.log(JSON.stringify({ examples: router.index.exampleCount, rss: after.rss - before.rss, live: after.live - before.live }));
}

interface Probe {
  examples: number;
  rss: number;
  live: number;
}

function probe(perIntent: number): Probe {
  const out = execFileSync(process.execPath, [process.argv[1]], { env: { ...process.env, INTENT_MEMORY_PROBE: String(perIntent) }, encoding: 'utf8' });
  return JSON.parse(out) as Probe;
}

async function main(): Promise<void> {
  const train = readJsonl('clinc150', 'train.jsonl').filter((r) => r.intent !== 'oos');
  const limit = Number(process.env.QUERIES ?? Infinity);
  const queries = readJsonl('clinc150', 'test.jsonl')
    .map((r) => r.text)
    .slice(0, limit);
  const rules = [
    ...rulesFromRows(train),
    ...syntheticRules(
      train.map((r) => r.text),
      1000,
    ),
  ];
  const before = memory();
  const t0 = performance.now();
  const router = IntentRouter.compile(rules);
  const buildMs = performance.now() - t0;
  const t1 = performance.now();
  await router.trainClassifier();
  const trainMs = performance.now() - t1;
  const after = memory();
  const examples = router.index.exampleCount;
  const cfg = mergeIntentConfig(DEFAULT_INTENT_CONFIG, { llmJudgeEnabled: false });

  for (const q of queries.slice(0, 500)) await router.route(q, cfg); // warm-up
  const rulePath: number[] = [];
  const semanticPath: number[] = [];
  const total: number[] = [];
  // CPU time of this process per routed query: unaffected by other processes on a shared machine
  const totalCpu: number[] = [];
  const loadBefore = loadavg();
  let ruleHits = 0;
  let timeouts = 0;
  for (const q of queries) {
    const r0 = performance.now();
    router.ruleMatcher.match(q);
    rulePath.push(performance.now() - r0);
    const c0 = process.cpuUsage();
    const s0 = performance.now();
    const res = await router.route(q, cfg);
    total.push(performance.now() - s0);
    const c1 = process.cpuUsage(c0);
    totalCpu.push((c1.user + c1.system) / 1000);
    semanticPath.push(res.routeTrace.semanticMatch.durationMs);
    if (res.routeTrace.ruleMatch !== null) ruleHits++;
    if (res.routeTrace.semanticMatch.skipped === 'timeout') timeouts++;
  }
  const perAggregation: Record<string, ReturnType<typeof percentiles>> = {};
  for (const agg of SEMANTIC_AGGREGATIONS) {
    const c = mergeIntentConfig(cfg, { semanticAggregation: agg });
    const xs: number[] = [];
    for (const q of queries) xs.push((await router.route(q, c)).routeTrace.semanticMatch.durationMs);
    perAggregation[agg] = percentiles(xs);
  }
  const mb = (b: number): number => round(b / 2 ** 20, 1);
  // marginal memory: fresh processes with 1/3 and all of the examples; the slope excludes fixed costs
  const small = probe(33);
  const full = probe(100);
  const slope = (k: keyof Probe): number => ((full[k] - small[k]) / (full.examples - small.examples)) * 10_000;
  const result = {
    node: process.version,
    date: new Date().toISOString(),
    tenant: {
      intents: router.index.intents.length,
      examples,
      keywordRules: 1000,
      keywords: router.ruleMatcher.keywordCount,
      patterns: router.ruleMatcher.patternCount,
    },
    queries: queries.length,
    ruleHits,
    semanticTimeouts: timeouts,
    aggregation: cfg.semanticAggregation,
    buildMs: round(buildMs, 0),
    classifierTrainMs: round(trainMs, 0),
    loadAverage1m: { before: round(loadBefore[0], 2), after: round(loadavg()[0], 2) },
    latencyMs: { rule: percentiles(rulePath), semantic: percentiles(semanticPath), total: percentiles(total), totalCpu: percentiles(totalCpu) },
    semanticByAggregationMs: perAggregation,
    memory: {
      rssDeltaMb: mb(after.rss - before.rss),
      liveDeltaMb: mb(after.live - before.live),
      rssPer10kExamplesMb: mb(((after.rss - before.rss) / examples) * 10_000),
      livePer10kExamplesMb: mb(((after.live - before.live) / examples) * 10_000),
      probes: { small: { examples: small.examples, rssMb: mb(small.rss) }, full: { examples: full.examples, rssMb: mb(full.rss) } },
      marginalRssPer10kExamplesMb: mb(slope('rss')),
      marginalLivePer10kExamplesMb: mb(slope('live')),
    },
  };
  const L = result.latencyMs;
  console.log(
    [
      '| measure | value | bar |',
      '|---|---|---|',
      `| rule path p50 / p95 / p99 (ms) | ${L.rule.p50} / ${L.rule.p95} / ${L.rule.p99} | p95 <= 0.5 |`,
      `| semantic path (${cfg.semanticAggregation}) p50 / p95 / p99 (ms) | ${L.semantic.p50} / ${L.semantic.p95} / ${L.semantic.p99} | p95 <= 5 |`,
      `| total without judge p50 / p95 / p99 (ms) | ${L.total.p50} / ${L.total.p95} / ${L.total.p99} | p95 <= 5 |`,
      `| total without judge, CPU time of this process p50 / p95 / p99 (ms) | ${L.totalCpu.p50} / ${L.totalCpu.p95} / ${L.totalCpu.p99} | |`,
      `| 1-min load average before / after (2 cores) | ${result.loadAverage1m.before} / ${result.loadAverage1m.after} | |`,
      ...Object.entries(perAggregation).map(([a, p]) => `| semantic path, ${a}: p50 / p95 / p99 (ms) | ${p.p50} / ${p.p95} / ${p.p99} | |`),
      `| RSS per 10,000 examples (MB): whole tenant delta / examples | ${result.memory.rssPer10kExamplesMb} (live heap+buffers ${result.memory.livePer10kExamplesMb}) | <= 50 |`,
      `| RSS per 10,000 examples (MB): marginal, fresh processes at ${small.examples} and ${full.examples} | ${result.memory.marginalRssPer10kExamplesMb} (live ${result.memory.marginalLivePer10kExamplesMb}) | <= 50 |`,
      `| build / classifier training (ms) | ${result.buildMs} / ${result.classifierTrainMs} | |`,
      `| rule hits / semantic timeouts over ${queries.length} queries | ${ruleHits} / ${timeouts} | |`,
    ].join('\n'),
  );
  const dir = resolve(process.cwd(), 'bench/results');
  mkdirSync(dir, { recursive: true });
  const file = resolve(dir, `intent-speed-${result.date.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify(result, null, 2));
  console.error(`wrote ${file}`);
}

if (process.env.INTENT_MEMORY_PROBE !== undefined) await memoryProbe(Number(process.env.INTENT_MEMORY_PROBE));
else await main();
