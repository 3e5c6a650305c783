/**
 * Labelled FAQ-retrieval sets for `bench:retrieval:quality` (docs in bench/retrieval/README.md).
 *
 * - `stackfaq` (English, real FAQ threads): StackFAQ (Karan & Šnajder 2018), StackExchange content
 *   (CC BY-SA). Not committed (see the README); read from BENCH_STACKFAQ or
 *   bench/data/external/stackfaq.json when present.
 * - `banking77-faq` (English) and `smp2017-faq` (Chinese), built from the labelled intent sets in
 *   ../shared/datasets (BANKING77 CC BY 4.0; SMP2017-ECDT research use, cite Zhang et al. 2017):
 *   each FAQ entry is a "standard question + similar questions" document made of training examples
 *   of one intent (the usual shape of a Chinese customer-service FAQ, 标准问 + 相似问); questions
 *   are held-out examples, right when the entry's intent is theirs.
 * Every fifth thread/intent is left out of the knowledge base: its questions have no answer there.
 * Questions are split in two: `fit` (to fit the calibration) and `test` (reported).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DEMO_KNOWLEDGE } from '@arbiter/retrieval';
import { rng } from './common.js';
import { DEMO_LABELS } from './demo-labels.js';
import { keywordForm } from './keyword-form.js';

export interface FaqDocument {
  filePath: string;
  title: string;
  content: string;
  domain: string;
  /** The label a question must share to be answered by it. */
  label: string;
  keywords?: string[];
}

export interface FaqQuestion {
  text: string;
  label: string;
  /** Further labels whose documents also answer it (CovidFAQ's queries judged relevant to several answers). */
  alsoRight?: readonly string[];
  /** Its label has a document in the knowledge base. */
  answerable: boolean;
  split: 'fit' | 'test';
}

export interface FaqSet {
  name: string;
  language: 'en' | 'zh';
  source: string;
  documents: FaqDocument[];
  questions: FaqQuestion[];
  /**
   * The built-in defaults (ranking and answerability models, `--fit`) were chosen on this set's `fit` half. False
   * for the sets added afterwards to report the defaults on data they never saw (issue 23 item 0).
   */
  defaultsChosenOn: boolean;
}

/** A result labelled `label` answers `question`. */
export function isRight(question: FaqQuestion, label: string | undefined): boolean {
  return label !== undefined && (label === question.label || (question.alsoRight?.includes(label) ?? false));
}

const SHARED = process.env.BENCH_SHARED_DATASETS ?? path.resolve('..', 'shared', 'datasets');

function readJsonl(file: string): { text: string; intent: string }[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { text: string; intent: string });
}

export function stackFaq(): FaqSet | null {
  const file = process.env.BENCH_STACKFAQ ?? path.resolve('bench/data/external/stackfaq.json');
  if (!existsSync(file)) return null;
  const data = JSON.parse(readFileSync(file, 'utf8')) as { threads: { id: string; question: string; answers: string[]; queries: string[] }[] };
  const documents: FaqDocument[] = [];
  const questions: FaqQuestion[] = [];
  data.threads.forEach((t, i) => {
    const answerable = i % 5 !== 4;
    if (answerable)
      documents.push({
        filePath: `stackfaq/${t.id}.md`,
        title: t.question,
        content: `${t.question}\n\n${t.answers.join('\n\n')}`,
        domain: 'webapps',
        label: t.id,
      });
    t.queries.forEach((q, k) => questions.push({ text: q, label: t.id, answerable, split: k % 2 === 0 ? 'fit' : 'test' }));
  });
  return {
    name: 'stackfaq',
    language: 'en',
    source: 'StackFAQ (Karan & Šnajder 2018), StackExchange webapps threads, CC BY-SA',
    documents,
    questions,
    defaultsChosenOn: true,
  };
}

/**
 * CovidFAQ (Poliak et al. 2020, *Collecting Verified COVID-19 Question Answer Pairs*, as published in the BERT-FAQ
 * repository's `data/CovidFAQ/query_answer_pairs.json`, MIT): 67 FAQ answers and 1,387 real user queries — short,
 * search-box style (`symptoms of coronavirus`, `Do I need a mask`) — each judged relevant to an answer. One document
 * per distinct answer (its FAQ questions, then the answer); a query typed the same way twice (case and spacing
 * aside) is asked once and is right with any of its answers. Not committed (see the README); read from
 * BENCH_COVIDFAQ or bench/data/external/covidfaq.json when present. Added after the defaults were chosen.
 */
export function covidFaq(): FaqSet | null {
  const file = process.env.BENCH_COVIDFAQ ?? path.resolve('bench/data/external/covidfaq.json');
  if (!existsSync(file)) return null;
  const pairs = JSON.parse(readFileSync(file, 'utf8')) as { query_type: string; question: string; answer: string }[];
  const faqQuestions = new Map<string, string[]>();
  for (const p of pairs.filter((x) => x.query_type === 'faq')) faqQuestions.set(p.answer, [...(faqQuestions.get(p.answer) ?? []), p.question.trim()]);
  const labelOf = new Map([...faqQuestions.keys()].map((answer, k) => [answer, `covid-${k + 1}`]));
  const answerable = new Set([...labelOf.values()].filter((_, k) => k % 5 !== 4));
  const documents: FaqDocument[] = [...faqQuestions].flatMap(([answer, asked]) => {
    const label = labelOf.get(answer) as string;
    return answerable.has(label)
      ? [{ filePath: `covidfaq/${label}.md`, title: asked[0], content: `${asked.join('\n')}\n\n${answer.trim()}`, domain: 'covid', label }]
      : [];
  });
  const queries = new Map<string, { text: string; labels: string[] }>();
  for (const p of pairs.filter((x) => x.query_type === 'user_query')) {
    const label = labelOf.get(p.answer);
    const text = p.question.trim();
    const key = text.toLowerCase().split(/\s+/).join(' ');
    if (!label || !key) continue;
    const seen = queries.get(key) ?? { text, labels: [] };
    if (!seen.labels.includes(label)) seen.labels.push(label);
    queries.set(key, seen);
  }
  const questions: FaqQuestion[] = [...queries.values()].map(({ text, labels }, i) => {
    const inBase = labels.filter((l) => answerable.has(l));
    const [label, ...alsoRight] = inBase.length ? inBase : labels;
    return { text, label, ...(alsoRight.length ? { alsoRight } : {}), answerable: inBase.length > 0, split: i % 2 === 0 ? 'fit' : 'test' };
  });
  return {
    name: 'covidfaq',
    language: 'en',
    source: 'CovidFAQ (Poliak et al. 2020), verified COVID-19 FAQ answers with real user queries, via BERT-FAQ (MIT)',
    documents,
    questions,
    defaultsChosenOn: false,
  };
}

/** An intent set as an FAQ: `perDoc` training examples per entry, up to `docsPerIntent` entries per intent. */
function intentFaq(
  name: string,
  language: 'en' | 'zh',
  source: string,
  train: { text: string; intent: string }[],
  test: { text: string; intent: string }[],
  docsPerIntent: number,
  perDoc: number,
  maxQuestions: number,
  /** The label of the set's out-of-scope examples (CLINC150's `oos`): never a document, its questions unanswerable. */
  outOfScope?: string,
): FaqSet {
  const random = rng(7);
  const byIntent = new Map<string, string[]>();
  for (const e of train) byIntent.set(e.intent, [...(byIntent.get(e.intent) ?? []), e.text]);
  const intents = [...byIntent.keys()].filter((i) => i !== outOfScope).sort();
  const answerableIntents = new Set(intents.filter((_, i) => i % 5 !== 4));
  const documents: FaqDocument[] = [];
  const fitPool: { text: string; intent: string }[] = [];
  for (const intent of intents) {
    const examples = byIntent.get(intent) as string[];
    const used = answerableIntents.has(intent) ? docsPerIntent * perDoc : 0;
    for (let d = 0; d * perDoc < used && d * perDoc < examples.length; d++) {
      const group = examples.slice(d * perDoc, (d + 1) * perDoc);
      documents.push({ filePath: `${name}/${intent}/${d}.md`, title: group[0], content: group.slice(1).join('\n'), domain: name, label: intent });
    }
    for (const text of examples.slice(used)) fitPool.push({ text, intent });
  }
  if (outOfScope) for (const text of byIntent.get(outOfScope) ?? []) fitPool.push({ text, intent: outOfScope });
  const sample = (items: { text: string; intent: string }[], n: number) => {
    const copy = [...items];
    for (let i = copy.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [copy[i], copy[j]] = [copy[j], copy[i]];
    }
    return copy.slice(0, n);
  };
  const questions: FaqQuestion[] = [
    ...sample(fitPool, maxQuestions).map((e) => ({ text: e.text, label: e.intent, answerable: answerableIntents.has(e.intent), split: 'fit' as const })),
    ...sample(test, maxQuestions).map((e) => ({ text: e.text, label: e.intent, answerable: answerableIntents.has(e.intent), split: 'test' as const })),
  ];
  return { name, language, source, documents, questions, defaultsChosenOn: true };
}

/** Where an intent set's files are and how it becomes an FAQ (`intentFaq`). */
interface IntentSetSpec {
  name: string;
  language: 'en' | 'zh';
  source: string;
  dir: string;
  train: string;
  test: string;
  docsPerIntent: number;
  perDoc: number;
  outOfScope?: string;
  defaultsChosenOn: boolean;
}

function intentSet(spec: IntentSetSpec, maxQuestions: number): FaqSet {
  const dir = path.join(SHARED, spec.dir);
  const set = intentFaq(
    spec.name,
    spec.language,
    spec.source,
    readJsonl(path.join(dir, spec.train)),
    readJsonl(path.join(dir, spec.test)),
    spec.docsPerIntent,
    spec.perDoc,
    maxQuestions,
    spec.outOfScope,
  );
  return { ...set, defaultsChosenOn: spec.defaultsChosenOn };
}

export function banking77Faq(maxQuestions = 800): FaqSet {
  const source = 'BANKING77 (Casanueva et al. 2020), CC BY 4.0, via ../shared/datasets';
  const files = { dir: 'banking77', train: 'train.jsonl', test: 'test.jsonl' };
  return intentSet({ name: 'banking77-faq', language: 'en', source, ...files, docsPerIntent: 2, perDoc: 8, defaultsChosenOn: true }, maxQuestions);
}

export function smp2017Faq(maxQuestions = 800): FaqSet {
  const source = 'SMP2017-ECDT (Zhang et al. 2017), research use, via ../shared/datasets';
  const files = { dir: 'smp2017', train: 'smp2017_train.jsonl', test: 'smp2017_test.jsonl' };
  return intentSet({ name: 'smp2017-faq', language: 'zh', source, ...files, docsPerIntent: 3, perDoc: 6, defaultsChosenOn: true }, maxQuestions);
}

/** The demo knowledge base (Chinese and English, with keywords) and its labelled questions. */
export function demoKb(): FaqSet {
  return {
    name: 'demo-kb',
    language: 'zh',
    source: "Arbiter's demo knowledge base (libs/retrieval/src/demo-knowledge.ts) with bench/retrieval/demo-labels.ts, our own content",
    documents: DEMO_KNOWLEDGE.map((d) => ({
      filePath: d.filePath,
      title: d.title,
      content: d.content,
      domain: d.domain,
      label: d.filePath,
      keywords: [...d.keywords],
    })),
    questions: DEMO_LABELS.map((l, i) => ({
      text: l.q,
      label: l.path ?? `absent-${i}`,
      answerable: l.path !== null,
      split: i % 2 === 0 ? ('fit' as const) : ('test' as const),
    })),
    defaultsChosenOn: true,
  };
}

/**
 * CLINC150 as an FAQ (one entry of 8 training examples per intent, every fifth intent left out), asked with its
 * test queries — short requests across ten domains — and its out-of-scope (`oos`) queries, which no entry answers.
 * Added after the defaults were chosen: they never saw it.
 */
export function clinc150Faq(maxQuestions = 800): FaqSet {
  const source = 'CLINC150 (Larson et al. 2019), CC BY 3.0, via ../shared/datasets; its out-of-scope queries are unanswerable';
  const files = { dir: 'clinc150', train: 'train.jsonl', test: 'test.jsonl' };
  return intentSet(
    { name: 'clinc150-faq', language: 'en', source, ...files, docsPerIntent: 1, perDoc: 8, outOfScope: 'oos', defaultsChosenOn: false },
    maxQuestions,
  );
}

/**
 * A set asked in keyword form (`keyword-form.ts`: its questions reduced to their content words by the `stopword`
 * package's lists), the way users type into a search box: `what is my credit score` → `credit score`. The documents
 * are the set's own. A mechanical rewrite of public questions, not a public set of keyword queries.
 */
export function inKeywordForm(set: FaqSet): FaqSet {
  return {
    ...set,
    name: `${set.name}-keywords`,
    source: `${set.source}; questions reduced to their content words (stopword npm package)`,
    questions: set.questions.map((q) => ({ ...q, text: keywordForm(q.text, set.language) })),
    defaultsChosenOn: false,
  };
}

export function allSets(): FaqSet[] {
  const banking = banking77Faq();
  const smp = smp2017Faq();
  const clinc = clinc150Faq();
  return [stackFaq(), banking, smp, demoKb(), clinc, covidFaq(), inKeywordForm(clinc), inKeywordForm(banking), inKeywordForm(smp)].filter(
    (s): s is FaqSet => s !== null,
  );
}
