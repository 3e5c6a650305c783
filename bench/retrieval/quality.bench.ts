/**
 * Retrieval quality (issue 16): labelled FAQ sets (bench/retrieval/quality-sets.ts) loaded through
 * `POST /admin/knowledge/documents/bulk` and asked through `POST /ai/knowledge/lookup` (one new
 * session per question), against MiniSearch (BM25) on the same documents in the same run.
 * Reports hit@1, hit@5, MRR@10 on the answerable test questions, and the grading rates:
 * right top-1 graded INSUFFICIENT, unanswerable graded INSUFFICIENT, wrong top-1 graded answerable.
 * With BENCH_CHAT=1 the test questions also go through `/ai/chat` (no LLM).
 * `--fit` fits the built-in calibration on the `fit` questions of all sets and prints it.
 * Env: BENCH_DB=postgres|pglite (default postgres), BENCH_SETS=comma list, BENCH_MAX_QUESTIONS.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Jieba } from '@node-rs/jieba';
import { dict } from '@node-rs/jieba/dict.js';
import MiniSearch from 'minisearch';
import { asTenantId } from '@arbiter/common';
import { evaluateGrading, fitCalibration, HybridSearchService, LexicalRepository, RetrievalSettingsService, type LabelledLookup } from '@arbiter/retrieval';
import { createApp } from '../../apps/api/src/create-app.js';
import { benchDb, createTarget, writeResult } from './common.js';
import { allSets, type FaqSet } from './quality-sets.js';

const ADMIN = 'bench-admin-token-0123456789abcdef';
const fitMode = process.argv.includes('--fit');
const withChat = process.env.BENCH_CHAT === '1';
const jieba = Jieba.withDict(dict);

interface Ranked {
  labels: string[];
}

interface SetReport {
  set: string;
  language: string;
  documents: number;
  answerableTest: number;
  unanswerableTest: number;
  ingestSeconds: number;
  arbiter: {
    hitAt1: number;
    hitAt5: number;
    mrrAt10: number;
    rightInsufficient: number;
    absentInsufficient: number;
    wrongAnswered: number;
    wrongStrong: number;
    levels: Record<string, number>;
    lookupP50Ms: number;
    lookupP95Ms: number;
  };
  bm25: { hitAt1: number; hitAt5: number; mrrAt10: number };
  chat?: { answeredRight: number; answeredWrong: number; refused: number; absentRefused: number };
}

function rankMetrics(rankings: Ranked[], truth: string[]): { hitAt1: number; hitAt5: number; mrrAt10: number } {
  let h1 = 0;
  let h5 = 0;
  let mrr = 0;
  rankings.forEach((r, i) => {
    const pos = r.labels.indexOf(truth[i]);
    if (pos === 0) h1++;
    if (pos >= 0 && pos < 5) h5++;
    if (pos >= 0 && pos < 10) mrr += 1 / (pos + 1);
  });
  const n = Math.max(rankings.length, 1);
  return { hitAt1: (100 * h1) / n, hitAt5: (100 * h5) / n, mrrAt10: mrr / n };
}

function bm25Baseline(set: FaqSet): (q: string) => string[] {
  const labelOf = new Map(set.documents.map((d) => [d.filePath, d.label]));
  const tokenize = set.language === 'zh' ? (text: string) => jieba.cutForSearch(text, true).filter((t) => t.trim()) : undefined;
  const mini = new MiniSearch<{ id: string; title: string; content: string }>({
    fields: ['title', 'content'],
    ...(tokenize ? { tokenize } : {}),
    searchOptions: { boost: { title: 2 }, ...(tokenize ? { tokenize } : {}) },
  });
  mini.addAll(set.documents.map((d) => ({ id: d.filePath, title: d.title, content: d.content })));
  return (q) =>
    mini
      .search(q)
      .slice(0, 10)
      .map((r) => labelOf.get(String(r.id)) as string);
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;

async function main(): Promise<void> {
  const only = process.env.BENCH_SETS?.split(',');
  const sets = allSets().filter((s) => !only || only.includes(s.name));
  const target = await createTarget(benchDb(), 20);
  const app = await createApp({
    env: {
      NODE_ENV: 'production',
      DATABASE_URL: target.url,
      ADMIN_TOKEN: ADMIN,
      JOBS_ENABLED: 'false',
      SEED_DEMO: 'false',
      DB_POOL_MAX: '8',
      SWAGGER_ENABLED: 'false',
    },
    logLevel: 'error',
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = await app.getUrl();
  const reports: SetReport[] = [];
  const fitLookups: (LabelledLookup & { set: string })[] = [];
  try {
    for (const set of sets) {
      const created = await fetch(`${base}/admin/tenants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `bench-${set.name}` }),
      });
      const tenant = (await created.json()) as { id: string; apiKeys: { client: string; operator: string } };
      const labelOf = new Map(set.documents.map((d) => [d.filePath, d.label]));
      const t0 = performance.now();
      for (let i = 0; i < set.documents.length; i += 500) {
        const batch = set.documents
          .slice(i, i + 500)
          .map(({ filePath, title, content, domain, keywords }) => ({ filePath, title, content, domain, ...(keywords ? { keywords } : {}) }));
        const res = await fetch(`${base}/admin/knowledge/documents/bulk`, {
          method: 'POST',
          headers: { 'x-api-key': tenant.apiKeys.operator, 'content-type': 'application/json' },
          body: JSON.stringify(batch),
        });
        const body = (await res.json()) as { summary: { failed: number } };
        if (res.status !== 200 || body.summary.failed) throw new Error(`bulk import failed: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
      }
      const ingestSeconds = (performance.now() - t0) / 1000;

      if (fitMode) {
        const search = app.get(HybridSearchService);
        const settings = await app.get(RetrievalSettingsService).get(asTenantId(tenant.id));
        const lexical = app.get(LexicalRepository);
        for (const q of set.questions.filter((x) => x.split === 'fit')) {
          const vector = await search.embed(q.text);
          const translatedVector = await search.embedTranslation(q.text);
          const found = await lexical.transaction((tx) => search.search(asTenantId(tenant.id), { query: q.text, vector, translatedVector }, settings, tx));
          fitLookups.push({ set: set.name, candidates: found.candidates.map((c) => ({ evidence: c.evidence, right: labelOf.get(c.filePath) === q.label })) });
        }
        console.log(`${set.name}: ${set.documents.length} documents, fit questions collected`);
        continue;
      }

      const test = set.questions.filter((q) => q.split === 'test');
      const bm25 = bm25Baseline(set);
      const arbiterRanked: Ranked[] = [];
      const bm25Ranked: Ranked[] = [];
      const truth: string[] = [];
      const levels: Record<string, number> = {};
      const latencies: number[] = [];
      let right = 0;
      let rightInsufficient = 0;
      let wrong = 0;
      let wrongAnswered = 0;
      let wrongStrong = 0;
      let absent = 0;
      let absentInsufficient = 0;
      for (const q of test) {
        const l0 = performance.now();
        const res = await fetch(`${base}/ai/knowledge/lookup`, {
          method: 'POST',
          headers: { 'x-api-key': tenant.apiKeys.client, 'content-type': 'application/json' },
          body: JSON.stringify({ sessionId: `bench-${randomUUID()}`, query: q.text, topK: 10 }),
        });
        const body = (await res.json()) as { results: { filePath: string }[]; relevanceLevel: string; completenessHint: string | null };
        latencies.push(performance.now() - l0);
        if (res.status !== 200) throw new Error(`lookup ${res.status}: ${JSON.stringify(body)}`);
        const labels = body.results.map((r) => labelOf.get(r.filePath) as string);
        const insufficient = body.completenessHint === 'INSUFFICIENT';
        const key = `${body.relevanceLevel}${body.completenessHint ? `/${body.completenessHint}` : ''}`;
        levels[key] = (levels[key] ?? 0) + 1;
        if (labels[0] === q.label) {
          right++;
          if (insufficient) rightInsufficient++;
        } else {
          wrong++;
          if (!insufficient) wrongAnswered++;
          if (body.relevanceLevel === 'PRECISE' || body.relevanceLevel === 'HIGHLY_RELEVANT') wrongStrong++;
        }
        if (!q.answerable) {
          absent++;
          if (insufficient) absentInsufficient++;
          continue;
        }
        arbiterRanked.push({ labels });
        bm25Ranked.push({ labels: bm25(q.text) });
        truth.push(q.label);
      }
      latencies.sort((a, b) => a - b);
      const share = (a: number, b: number) => (b ? (100 * a) / b : 0);
      const report: SetReport = {
        set: set.name,
        language: set.language,
        documents: set.documents.length,
        answerableTest: truth.length,
        unanswerableTest: absent,
        ingestSeconds,
        arbiter: {
          ...rankMetrics(arbiterRanked, truth),
          rightInsufficient: share(rightInsufficient, right),
          absentInsufficient: share(absentInsufficient, absent),
          wrongAnswered: share(wrongAnswered, wrong),
          wrongStrong: share(wrongStrong, wrong),
          levels,
          lookupP50Ms: pct(latencies, 50),
          lookupP95Ms: pct(latencies, 95),
        },
        bm25: rankMetrics(bm25Ranked, truth),
      };
      if (withChat) {
        let answeredRight = 0;
        let answeredWrong = 0;
        let refused = 0;
        let absentRefused = 0;
        for (const q of test) {
          const res = await fetch(`${base}/ai/chat`, {
            method: 'POST',
            headers: { 'x-api-key': tenant.apiKeys.client, 'content-type': 'application/json' },
            body: JSON.stringify({ message: q.text }),
          });
          const body = (await res.json()) as { references: { filePath: string }[]; shouldTransfer: boolean };
          if (res.status !== 200) throw new Error(`chat ${res.status}: ${JSON.stringify(body)}`);
          const answered = body.references.length > 0;
          if (!answered) {
            refused++;
            if (!q.answerable) absentRefused++;
          } else if (body.references.some((r) => labelOf.get(r.filePath) === q.label)) answeredRight++;
          else answeredWrong++;
        }
        report.chat = {
          answeredRight: share(answeredRight, test.length),
          answeredWrong: share(answeredWrong, test.length),
          refused: share(refused, test.length),
          absentRefused: share(absentRefused, absent),
        };
      }
      reports.push(report);
      const a = report.arbiter;
      console.log(
        `${set.name} (${set.language}, ${report.documents} docs, ${report.answerableTest} answerable + ${absent} unanswerable test questions, ingest ${ingestSeconds.toFixed(1)} s)\n` +
          `  arbiter hit@1 ${a.hitAt1.toFixed(1)} hit@5 ${a.hitAt5.toFixed(1)} MRR@10 ${a.mrrAt10.toFixed(3)} | BM25 (MiniSearch) hit@1 ${report.bm25.hitAt1.toFixed(1)} hit@5 ${report.bm25.hitAt5.toFixed(1)} MRR@10 ${report.bm25.mrrAt10.toFixed(3)}\n` +
          `  grading: right top-1 INSUFFICIENT ${a.rightInsufficient.toFixed(1)} % (<= 15), unanswerable INSUFFICIENT ${a.absentInsufficient.toFixed(1)} % (>= 70), wrong top-1 graded PRECISE/HIGHLY_RELEVANT ${a.wrongStrong.toFixed(1)} % (<= 10), wrong top-1 not INSUFFICIENT ${a.wrongAnswered.toFixed(1)} %\n` +
          `  levels ${JSON.stringify(levels)}; lookup p50 ${a.lookupP50Ms.toFixed(1)} ms p95 ${a.lookupP95Ms.toFixed(1)} ms (sequential)` +
          (report.chat
            ? `\n  chat: answered with the right document ${report.chat.answeredRight.toFixed(1)} %, answered wrongly ${report.chat.answeredWrong.toFixed(1)} %, refused ${report.chat.refused.toFixed(1)} % (unanswerable refused ${report.chat.absentRefused.toFixed(1)} %)`
            : ''),
      );
    }
    if (fitMode) {
      // The demo set is the only one with keywords (exact hits): it counts as a quarter of the lookups.
      const demo = fitLookups.filter((l) => l.set === 'demo-kb').length;
      const demoWeight = demo ? (0.25 * (fitLookups.length - demo)) / demo : 1;
      for (const l of fitLookups) if (l.set === 'demo-kb') l.weight = demoWeight;
      const fit = fitCalibration(fitLookups);
      const m = evaluateGrading(
        fitLookups.map((l) => ({ ...l, answerable: l.candidates.some((c) => c.right) })),
        fit.calibration,
      );
      console.log(`fitted on ${fitLookups.length} lookups (${fit.samples} candidates): ${JSON.stringify(m)}`);
      for (const set of sets) {
        const mine = fitLookups.filter((l) => l.set === set.name).map((l) => ({ ...l, answerable: l.candidates.some((c) => c.right) }));
        const own = fitCalibration(mine);
        console.log(
          `  ${set.name}: shared fit ${JSON.stringify(evaluateGrading(mine, fit.calibration))}\n  ${set.name}: own fit    ${JSON.stringify(evaluateGrading(mine, own.calibration))}`,
        );
      }
      console.log(
        JSON.stringify({
          weights: fit.calibration.weights.map((w) => Math.round(w * 10000) / 10000),
          cuts: {
            reference: Math.round(fit.calibration.cuts.reference * 10000) / 10000,
            highlyRelevant: Math.round(fit.calibration.cuts.highlyRelevant * 10000) / 10000,
          },
        }),
      );
    } else {
      console.log(`results: ${writeResult('retrieval-quality', { db: target.kind, reports })}`);
    }
  } finally {
    await app.close();
    await target.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
