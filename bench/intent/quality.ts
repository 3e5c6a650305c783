/**
 * Intent quality benchmark: CLINC150 (oos-threshold protocol), BANKING77 (full, 10-shot), SMP2017.
 * Training sets become one rule per intent (examples as semanticExamples), the judge is off, the
 * aggregation / featurizer / threshold are chosen on val (or a held-out part of train), then reported
 * on test, next to NLP.js trained on the same rows in the same run.
 * Env: DATASETS_DIR (default ../shared/datasets), ONLY=clinc150,banking77,banking77_10shot,smp2017, NLPJS=0.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DEFAULT_INTENT_CONFIG, HashingFeaturizer, IntentRouter, jiebaSegmenter, type EvaluationReport, type LabelledExample } from './core.js';
import { labelled, readJsonl, rulesFromRows, stratifiedSplit, type Row } from './datasets.js';
import { loadNlpJs, trainNlpJs } from './nlpjs.js';
import {
  chooseAggregation,
  chooseOosThreshold,
  evaluateOnTest,
  evaluateWith,
  inScopeAccuracyAt,
  oosRecallAt,
  productFit,
  round,
  type AggregationChoice,
} from './protocol.js';

interface DatasetResult {
  dataset: string;
  trainExamples: number;
  selectionSet: string;
  featurizer: string;
  aggregation: string;
  selection: Record<string, unknown>;
  threshold: number;
  buildMs: number;
  trainMs: number;
  test: { inScopeAccuracy: number | null; outOfScopeRecall: number | null; noThresholdInScopeAccuracy?: number; report: EvaluationReport };
  /**
   * The product's fit (`POST /admin/intent-config/fit`, docs/learning.md) on the selection set, then
   * test with the proposed config and its calibration: what an operator gets from the fit endpoint.
   */
  fitted: {
    proposed: Record<string, unknown>;
    feasible: boolean;
    crossValidated: { inScopeAccuracy: number | null; outOfScopeRecall: number | null; clarifyRate: number };
    fitMs: number;
    test: { inScopeAccuracy: number | null; outOfScopeRecall: number | null; clarifyRate: number; eceRaw: number; eceCalibrated: number };
  };
  /** Test with the product defaults (classifier, minTriggerThreshold 0.3), judge off: no tuning at all. */
  defaults: { inScopeAccuracy: number | null; outOfScopeRecall: number | null; clarifyRate: number };
  nlpjs: { inScopeAccuracy: number; outOfScopeRecall: number | null; threshold: number; trainMs: number; msPerQuery: number } | { skipped: string };
}

type Featurizers = Record<string, () => HashingFeaturizer>;
const CHAR_NGRAMS: Featurizers = { ngrams: () => new HashingFeaturizer() };
const CHINESE: Featurizers = { ...CHAR_NGRAMS, 'ngrams+jieba': () => new HashingFeaturizer({ cjkSegmenter: jiebaSegmenter() }) };

async function fit(rows: readonly Row[], featurizer: HashingFeaturizer): Promise<{ router: IntentRouter; buildMs: number; trainMs: number }> {
  const t0 = performance.now();
  const router = IntentRouter.compile(rulesFromRows(rows), { featurizer });
  const buildMs = performance.now() - t0;
  const t1 = performance.now();
  await router.trainClassifier();
  return { router, buildMs, trainMs: performance.now() - t1 };
}

interface Spec {
  name: string;
  fitRows: Row[];
  selectRows: Row[];
  selectionSet: string;
  /** Rows of the final model (train, or train + nothing when val is separate). */
  finalRows: Row[];
  test: LabelledExample[];
  oos: boolean;
  locale: 'en' | 'zh';
  featurizers: Featurizers;
  oosLabel?: string;
}

async function runDataset(spec: Spec, nlpjs: Awaited<ReturnType<typeof loadNlpJs>>): Promise<DatasetResult> {
  console.error(`[${spec.name}] selecting on ${spec.selectionSet} (${spec.selectRows.length} examples)`);
  const select = labelled(spec.selectRows, spec.oosLabel);
  let best: { featurizer: string; choice: AggregationChoice } | null = null;
  const selection: Record<string, unknown> = {};
  for (const [fname, make] of Object.entries(spec.featurizers)) {
    const { router } = await fit(spec.fitRows, make());
    const choice = await chooseAggregation(router, select);
    selection[fname] = choice.selection;
    const acc = inScopeAccuracyAt(choice.scored, 0);
    if (best === null || acc > inScopeAccuracyAt(best.choice.scored, 0)) best = { featurizer: fname, choice };
  }
  if (best === null) throw new Error('no featurizer');
  const threshold = spec.oos ? chooseOosThreshold(best.choice.scored) : 0;
  console.error(`[${spec.name}] chose ${best.featurizer} / ${best.choice.aggregation}, threshold ${threshold}; fitting final model`);
  const final = await fit(spec.finalRows, spec.featurizers[best.featurizer]());
  const report = await evaluateOnTest(final.router, spec.test, best.choice.aggregation, threshold);
  const noThreshold = spec.oos ? await evaluateOnTest(final.router, spec.test, best.choice.aggregation, 0) : null;
  const defaults = await evaluateOnTest(final.router, spec.test, DEFAULT_INTENT_CONFIG.semanticAggregation, DEFAULT_INTENT_CONFIG.minTriggerThreshold);
  console.error(`[${spec.name}] product fit on ${spec.selectionSet}`);
  const fitStart = performance.now();
  const { router: selectRouter } = await fit(spec.fitRows, spec.featurizers[best.featurizer]());
  const product = await productFit(selectRouter, select);
  const fitMs = performance.now() - fitStart;
  const fittedReport = await evaluateWith(final.router, spec.test, product.config);
  const uncalibrated = await evaluateWith(final.router, spec.test, { ...product.config, calibration: null });
  const fitted: DatasetResult['fitted'] = {
    proposed: { ...product.fit.proposed },
    feasible: product.fit.feasible,
    crossValidated: {
      inScopeAccuracy: product.fit.crossValidated.inScopeAccuracy,
      outOfScopeRecall: product.fit.crossValidated.outOfScopeRecall,
      clarifyRate: product.fit.crossValidated.clarifyRate,
    },
    fitMs: round(fitMs, 0),
    test: {
      inScopeAccuracy: fittedReport.inScopeAccuracy,
      outOfScopeRecall: fittedReport.outOfScopeRecall,
      clarifyRate: fittedReport.clarifyRate,
      eceRaw: uncalibrated.reliability.ece,
      eceCalibrated: fittedReport.reliability.ece,
    },
  };
  const result: DatasetResult = {
    dataset: spec.name,
    trainExamples: spec.finalRows.length,
    selectionSet: spec.selectionSet,
    featurizer: best.featurizer,
    aggregation: best.choice.aggregation,
    selection,
    threshold,
    buildMs: round(final.buildMs, 0),
    trainMs: round(final.trainMs, 0),
    test: {
      inScopeAccuracy: report.inScopeAccuracy,
      outOfScopeRecall: report.outOfScopeRecall,
      ...(noThreshold?.inScopeAccuracy != null ? { noThresholdInScopeAccuracy: noThreshold.inScopeAccuracy } : {}),
      report,
    },
    fitted,
    defaults: { inScopeAccuracy: defaults.inScopeAccuracy, outOfScopeRecall: defaults.outOfScopeRecall, clarifyRate: defaults.clarifyRate },
    nlpjs: { skipped: 'node-nlp is not installed' },
  };
  if (nlpjs === null) return result;
  if (process.env.NLPJS === '0') return { ...result, nlpjs: { skipped: 'NLPJS=0' } };
  console.error(`[${spec.name}] training NLP.js on ${spec.finalRows.length} rows`);
  const nlpSelect = spec.oos ? await trainNlpJs(nlpjs, spec.fitRows, spec.locale) : null;
  const nlpThreshold = nlpSelect !== null ? chooseOosThreshold((await nlpSelect.score(select)).scored) : 0;
  const nlp = spec.fitRows === spec.finalRows && nlpSelect !== null ? nlpSelect : await trainNlpJs(nlpjs, spec.finalRows, spec.locale);
  const { scored, msPerQuery } = await nlp.score(spec.test);
  result.nlpjs = {
    inScopeAccuracy: inScopeAccuracyAt(scored, nlpThreshold),
    outOfScopeRecall: oosRecallAt(scored, nlpThreshold),
    threshold: nlpThreshold,
    trainMs: round(nlp.trainMs, 0),
    msPerQuery: round(msPerQuery, 3),
  };
  return result;
}

function specs(): Spec[] {
  const clincTrain = readJsonl('clinc150', 'train.jsonl').filter((r) => r.intent !== 'oos');
  const bank = readJsonl('banking77', 'train.jsonl');
  const bankSplit = stratifiedSplit(bank, 0.1);
  const bank10 = readJsonl('banking77', 'train_10shot.jsonl');
  const bank10Split = stratifiedSplit(bank10, 0.2);
  const bankTest = labelled(readJsonl('banking77', 'test.jsonl'));
  const smpTrain = readJsonl('smp2017', 'smp2017_train.jsonl');
  return [
    {
      name: 'clinc150',
      fitRows: clincTrain,
      selectRows: readJsonl('clinc150', 'val.jsonl'),
      selectionSet: 'val',
      finalRows: clincTrain,
      test: labelled(readJsonl('clinc150', 'test.jsonl'), 'oos'),
      oos: true,
      oosLabel: 'oos',
      locale: 'en',
      featurizers: CHAR_NGRAMS,
    },
    {
      name: 'banking77',
      fitRows: bankSplit.train,
      selectRows: bankSplit.holdout,
      selectionSet: '10% of train held out',
      finalRows: bank,
      test: bankTest,
      oos: false,
      locale: 'en',
      featurizers: CHAR_NGRAMS,
    },
    {
      name: 'banking77_10shot',
      fitRows: bank10Split.train,
      selectRows: bank10Split.holdout,
      selectionSet: '2 of 10 examples per intent held out',
      finalRows: bank10,
      test: bankTest,
      oos: false,
      locale: 'en',
      featurizers: CHAR_NGRAMS,
    },
    {
      name: 'smp2017',
      fitRows: smpTrain,
      selectRows: readJsonl('smp2017', 'smp2017_val.jsonl'),
      selectionSet: 'val',
      finalRows: smpTrain,
      test: labelled(readJsonl('smp2017', 'smp2017_test.jsonl')),
      oos: false,
      locale: 'zh',
      featurizers: CHINESE,
    },
  ];
}

const pct = (x: number | null | undefined): string => (x === null || x === undefined ? '—' : (x * 100).toFixed(1));

function table(results: readonly DatasetResult[]): string {
  const bars: Record<string, string> = {
    clinc150: '>= 88.6 / >= 28.3 (FastText oos-threshold)',
    banking77: '>= 87.2 (BERT-Fixed)',
    banking77_10shot: 'beat NLP.js',
    smp2017: 'beat NLP.js',
  };
  const lines = [
    '| dataset | metric | Arbiter, chosen on val (aggregation, featurizer, threshold) | Arbiter, product fit on val (clarify, ECE raw → calibrated) | Arbiter, product defaults | NLP.js | bar |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    const n =
      'skipped' in r.nlpjs
        ? `n/a (${r.nlpjs.skipped})`
        : `${pct(r.nlpjs.inScopeAccuracy)}${r.nlpjs.outOfScopeRecall !== null ? ` / ${pct(r.nlpjs.outOfScopeRecall)}` : ''}`;
    const metric = r.test.outOfScopeRecall !== null ? 'in-scope acc / OOS recall' : 'accuracy';
    const ours = `${pct(r.test.inScopeAccuracy)}${r.test.outOfScopeRecall !== null ? ` / ${pct(r.test.outOfScopeRecall)}` : ''} (${r.aggregation}, ${r.featurizer}, t=${r.threshold})`;
    const defaults = `${pct(r.defaults.inScopeAccuracy)}${r.defaults.outOfScopeRecall !== null ? ` / ${pct(r.defaults.outOfScopeRecall)}` : ''}`;
    const f = r.fitted.test;
    const fitted = `${pct(f.inScopeAccuracy)}${f.outOfScopeRecall !== null ? ` / ${pct(f.outOfScopeRecall)}` : ''} (clarify ${pct(f.clarifyRate)}, ECE ${f.eceRaw} → ${f.eceCalibrated}, ${String(r.fitted.proposed.semanticAggregation)}, t=${String(r.fitted.proposed.minTriggerThreshold)})`;
    lines.push(`| ${r.dataset} | ${metric} | ${ours} | ${fitted} | ${defaults} | ${n} | ${bars[r.dataset] ?? ''} |`);
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const only = process.env.ONLY?.split(',').map((s) => s.trim());
  const nlpjs = process.env.NLPJS === '0' ? null : await loadNlpJs();
  if (nlpjs === null && process.env.NLPJS !== '0') console.error('node-nlp is not installed: NLP.js column skipped');
  const results: DatasetResult[] = [];
  for (const spec of specs()) {
    if (only !== undefined && !only.includes(spec.name)) continue;
    results.push(await runDataset(spec, nlpjs));
  }
  const md = table(results);
  console.log(md);
  const dir = resolve(process.cwd(), 'bench/results');
  mkdirSync(dir, { recursive: true });
  const file = resolve(dir, `intent-quality-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify({ node: process.version, date: new Date().toISOString(), results, markdown: md }, null, 2));
  console.error(`wrote ${file}`);
}

await main();
