/**
 * Files in, end to end (issue 22, "Tests and benchmarks"; bench/documents/README.md): Debian Reference 2.100
 * in English (261 pages) and Simplified Chinese (251 pages), as Debian installs them, each uploaded through
 * `POST /admin/knowledge/files` into a tenant of its own on a fresh database, the import timed from the upload
 * to `succeeded`, then every labelled question (bench/documents/questions.{en,zh}.json) asked through
 * `POST /ai/knowledge/lookup` (topK 3, a new session each), against MiniSearch (BM25) over the same chunks,
 * read back from the API, in the same run. Reports, per language, with the bars:
 *   answered in the top 3 (≥ 75 %), page cited correctly (≥ 90 % of the answered), unanswerable questions
 *   graded INSUFFICIENT (≥ 75 %), import time (≤ 30 s on the embedded database, quiet).
 * `--health`: `/health` latency from a client in its own process while a ~50 MiB PDF (≤ 2,000 pages, made at
 *   run time from the manuals with qpdf), sent by an uploader in another process, imports; bar p99 ≤ 100 ms on the
 *   embedded database. Then the large document is deleted: `/health` and a neighbour's lookups meanwhile (reported).
 * `--offline`: no API: the manuals extracted and chunked in this process by libs/documents (its defaults),
 *   BM25 only — the questions and the scoring without the upload path.
 * Env: BENCH_DB=pglite (default, the embedded database in a temporary DATA_DIR) | postgres (a fresh database on
 *   BENCH_POSTGRES_URL); BENCH_LANGS=en,zh; BENCH_QUESTIONS=held-out (default: the sets the bars are reported on) | dev
 *   (the sets to tune on); BENCH_FIT=dev (each tenant fits its grade on the dev questions' page labels, then the
 *   held-out questions are asked; BENCH_FIT_CURVE=1 also refits for each right-refused target of FIT_CURVE_TARGETS
 *   and reads the three grading rates on the held-out questions: the trade-off curve); BENCH_CHAT=1 (every question
 *   also through /ai/chat: answered citing a labelled page, answered otherwise, refused); BENCH_CHUNK_SIZE (the
 *   tenant's chunk size for the upload; default: the tenant default); BENCH_QUIET=1 declares the machine quiet (else
 *   figures are labelled not quiet); BENCH_IMPORT_TIMEOUT_SECONDS (600; 1800 with --health); health:
 *   BENCH_IDLE_SECONDS (10), HEALTH_RPS (20), LOOKUP_RPS (2, the neighbour tenant's lookups), BENCH_REUPLOAD=last
 *   (default: the re-upload leaves out the file's last page; few chunks change) | first (its first: every chunk's pages move).
 * Run: npm run bench:documents [-- --health | -- --offline]
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Jieba } from '@node-rs/jieba';
import { dict } from '@node-rs/jieba/dict.js';
import MiniSearch from 'minisearch';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { chunkDocument, DEFAULT_EXTRACTION_LIMITS, extractDocument } from '@arbiter/documents';
import { DEMO_KNOWLEDGE } from '@arbiter/retrieval';
import { createApp } from '../../apps/api/src/create-app.js';
import { dropDatabase, http, withDatabase } from '../support/bench-http.js';
import { writeResult } from '../retrieval/common.js';
import { buildChangedPdf, buildLargePdf, installedVersion, manualProblem } from './manuals.js';
import {
  copiedPhrase,
  loadQuestionSet,
  MANUAL_LANGUAGES,
  type ManualLanguage,
  QUESTION_SPLITS,
  questionSetFile,
  questionSetProblems,
  type QuestionSet,
  type QuestionSplit,
} from './questions.js';
import {
  type AnswerableOutcome,
  type AnswerableSummary,
  answerableOutcome,
  BARS,
  firstHit,
  gradedInsufficient,
  chatRates,
  gradingRates,
  type ChatOutcome,
  type ChatRates,
  type GradingRates,
  type LatencyStats,
  meetsPages,
  mergeLatencyStats,
  percentile,
  type RankedPassage,
  summarizeAnswerable,
} from './scoring.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ADMIN = 'bench-admin-token-0123456789abcdef';
const kind = process.env.BENCH_DB === 'postgres' ? 'postgres' : 'pglite';
const adminUrl = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const offline = process.argv.includes('--offline');
const healthMode = process.argv.includes('--health');
const quiet = process.env.BENCH_QUIET === '1';
/** The page the health mode's re-upload leaves out (`BENCH_REUPLOAD`). */
const reuploadDrops: 'last' | 'first' = process.env.BENCH_REUPLOAD === 'first' ? 'first' : 'last';
const importTimeoutSeconds = Number(process.env.BENCH_IMPORT_TIMEOUT_SECONDS ?? (healthMode ? 1800 : 600));
const idleSeconds = Number(process.env.BENCH_IDLE_SECONDS ?? 10);
const chunkSizeOverride = process.env.BENCH_CHUNK_SIZE ? Number(process.env.BENCH_CHUNK_SIZE) : null;
/** BENCH_FIT=dev: the tenant's grade is fitted on the dev questions' page labels before the held-out ones are asked. */
const fitOnDev = process.env.BENCH_FIT === 'dev';
/** BENCH_FIT_CURVE=1 (with BENCH_FIT=dev): the tenant fit's trade-off curve, one refit per target, read on the held-out questions. */
const fitCurve = process.env.BENCH_FIT_CURVE === '1';
/** BENCH_CHAT=1: every question also through `/ai/chat` (no model), as bench:retrieval:quality does for the FAQ sets. */
const withChat = process.env.BENCH_CHAT === '1';
/** Right-refused targets of the curve (`targets.maxRightInsufficient` of the fit), as in bench:retrieval:quality. */
const FIT_CURVE_TARGETS = [0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5] as const;
const fits: { language: ManualLanguage; pairs: number; before: unknown; after: unknown }[] = [];
const TOP_K = 3;
/** The upload limits the API runs with by default (UPLOAD_MAX_FILE_BYTES, UPLOAD_MAX_PDF_PAGES). */
const LARGE_PDF_MAX_BYTES = 50 * 1024 * 1024;
const LARGE_PDF_MAX_PAGES = 2000;

const jieba = Jieba.withDict(dict);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const pct = (n: number) => `${n.toFixed(1)} %`;
const mark = (ok: boolean) => (ok ? '✓' : '✗');

/** A chunk of the manual's document as stored: its text and where it came from. */
interface BenchChunk {
  index: number;
  content: string;
  page: number | null;
  pageEnd: number | null;
  section: string[];
}

interface Passage extends RankedPassage {
  /** The page came with the result from the API (not recovered from the chunk's text by the bench). */
  fromApi: boolean;
}

interface LookupBody {
  results: { documentId: string; content: string; relevance: number; page?: number | null; pageEnd?: number | null; section?: string[] | null }[];
  relevanceLevel: string;
  completenessHint: string | null;
}

interface QuestionDetail {
  id: string;
  pages?: number[];
  arbiter?: { top: (Passage & { relevance: number })[]; level: string; hint: string | null; hitRank: number };
  bm25: { top: RankedPassage[]; hitRank: number };
}

interface LanguageReport {
  language: ManualLanguage;
  manual: { package: string; version: string; pages: number; pageCount: number | null };
  importSeconds: number | null;
  /** Status polls answered 503 during the import (retried). */
  importUnavailable: number;
  importStatus: unknown;
  chunks: { count: number; withPage: number; meanPageSpan: number; maxLength: number; source: string };
  /** Questions sharing a phrase with the manual's text (questions.ts, COPIED_PHRASE): should be none. */
  copied: { id: string; phrase: string }[];
  arbiter:
    | (AnswerableSummary & {
        unanswerable: number;
        unanswerableInsufficient: number;
        /** Issue 23's three grading rates (scoring.ts `gradingRates`). */
        grading: GradingRates;
        lookupP50Ms: number;
        lookupP95Ms: number;
        resultsPerLookup: { mean: number; max: number };
        levels: Record<string, number>;
        /** BENCH_CHAT=1: the questions through `/ai/chat` (scoring.ts `chatRates`). */
        chat: ChatRates | null;
        /** BENCH_FIT_CURVE=1: per right-refused target of the dev fit, the held-out grading rates. */
        fitCurve: { target: number; grading: GradingRates }[];
      })
    | null;
  bm25: AnswerableSummary;
  details: QuestionDetail[];
}

// ---------------------------------------------------------------- the API

interface Api {
  base: string;
  app: Awaited<ReturnType<typeof createApp>>;
  close(): Promise<void>;
}

/** The API in this process as the default install runs it: the embedded database (or a fresh PostgreSQL one), jobs on, no LLM. */
async function startApi(): Promise<Api> {
  let dataDir: string | undefined;
  let dbName: string | undefined;
  if (kind === 'postgres') {
    dbName = `arbiter_bench_documents_${process.pid}`;
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    await c.query(`CREATE DATABASE ${dbName}`);
    await c.end();
  } else dataDir = mkdtempSync(path.join(os.tmpdir(), 'arbiter-documents-'));
  const app = await createApp({
    env: {
      NODE_ENV: 'production',
      ...(dbName ? { DATABASE_URL: withDatabase(adminUrl, dbName) } : { DATA_DIR: dataDir }),
      ADMIN_TOKEN: ADMIN,
      JOBS_ENABLED: 'true',
      SEED_DEMO: 'false',
      LLM_PROVIDER: 'none',
      SWAGGER_ENABLED: 'false',
    },
    // BENCH_LOG_LEVEL=info shows the API's own logs (e.g. how long a file's write groups took).
    logLevel: (process.env.BENCH_LOG_LEVEL as 'info' | undefined) ?? 'error',
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    base: await app.getUrl(),
    app,
    close: async () => {
      await app.close();
      if (dbName) await dropDatabase(adminUrl, dbName);
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function createTenant(
  base: string,
  name: string,
): Promise<{ id: string; client: Record<string, string>; operator: Record<string, string>; clientKey: string }> {
  const res = await http<{ id: string; apiKeys: { client: string; operator: string } }>(
    base,
    'POST',
    '/admin/tenants',
    { authorization: `Bearer ${ADMIN}` },
    { name },
  );
  if (res.status !== 201) throw new Error(`create tenant: ${res.status}`);
  return {
    id: res.json.id,
    client: { 'x-api-key': res.json.apiKeys.client },
    operator: { 'x-api-key': res.json.apiKeys.operator },
    clientKey: res.json.apiKeys.client,
  };
}

interface ImportOutcome {
  seconds: number;
  status: { status: string; failures?: unknown[] } & Record<string, unknown>;
  /** Status polls answered 503 (database busy, "retry shortly") and retried, as a client would. */
  unavailable: number;
  /** Seconds from the upload request to its 202. */
  uploadSeconds: number;
}

/** Uploads one file through the real API and waits for its import: upload → `succeeded`/`failed`, timed. */
/** Uploads one file through the real API; returns its import's id once the upload is accepted (202). */
async function upload(base: string, operator: Record<string, string>, file: string, domain: string): Promise<string> {
  const bytes = readFileSync(file);
  const form = new FormData();
  form.append('domain', domain);
  form.append('file', new Blob([bytes], { type: 'application/pdf' }), path.basename(file));
  const res = await fetch(`${base}/admin/knowledge/files`, { method: 'POST', headers: operator, body: form });
  const started = (await res.json()) as { importId?: string };
  if (res.status !== 202 || !started.importId) throw new Error(`upload of ${path.basename(file)}: ${res.status} ${JSON.stringify(started).slice(0, 500)}`);
  return started.importId;
}

/**
 * The upload from a process of its own (bench/documents/upload-client.ts), as a real client sends it: in this
 * process, building and sending the 50 MiB form held the API's event loop. `onSending` runs as the request goes out.
 */
async function uploadFromOwnProcess(base: string, operator: Record<string, string>, file: string, domain: string, onSending: () => void): Promise<string> {
  const child = fork(path.join(root, 'bench/documents/upload-client.ts'), [], {
    cwd: root,
    execArgv: ['--import', './bench/support/register.mjs'],
    env: { ...process.env, TARGET_URL: base, UPLOAD_FILE: file, UPLOAD_DOMAIN: domain, UPLOAD_HEADERS: JSON.stringify(operator) },
  });
  const done = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    child.on('message', (m: { type: string; status?: number; body?: string }) => {
      if (m.type === 'sending') onSending();
      else if (m.type === 'done') resolve({ status: m.status as number, body: m.body as string });
    });
    child.once('exit', (code) => reject(new Error(`the upload client exited with code ${code} before answering`)));
  });
  let started: { importId?: string } = {};
  try {
    started = JSON.parse(done.body) as { importId?: string };
  } catch {
    // Not JSON: reported below with the status.
  }
  if (done.status !== 202 || !started.importId) throw new Error(`upload of ${path.basename(file)}: ${done.status} ${done.body.slice(0, 500)}`);
  return started.importId;
}

/** Polls the import every 250 ms until `succeeded`/`failed`; a 503 ("retry shortly") is retried and counted, as a client would. */
async function waitForImport(base: string, operator: Record<string, string>, importId: string, t0: number): Promise<Omit<ImportOutcome, 'uploadSeconds'>> {
  let unavailable = 0;
  for (;;) {
    await sleep(250);
    const s = await http<ImportOutcome['status']>(base, 'GET', `/admin/knowledge/imports/${importId}`, operator);
    const seconds = (performance.now() - t0) / 1000;
    if (seconds > importTimeoutSeconds)
      throw new Error(`import not finished after ${importTimeoutSeconds} s (last status ${s.status} ${JSON.stringify(s.json).slice(0, 200)})`);
    if (s.status === 503) {
      unavailable++;
      continue;
    }
    if (s.status !== 200) throw new Error(`import status: ${s.status} ${JSON.stringify(s.json).slice(0, 300)}`);
    if (s.json.status === 'succeeded' || s.json.status === 'failed') return { seconds, status: s.json, unavailable };
  }
}

/** Uploads one file and waits for its import: upload → `succeeded`/`failed`, timed. */
async function uploadAndWait(base: string, operator: Record<string, string>, file: string, domain: string): Promise<ImportOutcome> {
  const t0 = performance.now();
  const importId = await upload(base, operator, file, domain);
  const uploadSeconds = (performance.now() - t0) / 1000;
  return { ...(await waitForImport(base, operator, importId, t0)), uploadSeconds };
}

/**
 * A tenant's own grade fit (docs/retrieval.md "Fitting the grade") on the dev questions of the manual: each answerable
 * one labelled with its pages, the unanswerable ones with no document. Reports the fit's in-sample metrics.
 */
async function fitOnDevQuestions(
  base: string,
  operator: Record<string, string>,
  language: ManualLanguage,
  filePath: string,
  maxRightInsufficient?: number,
): Promise<{ language: ManualLanguage; pairs: number; before: unknown; after: unknown }> {
  const dev = loadQuestionSet(language, 'dev');
  const pairs = [
    ...dev.answerable.map((q) => ({ query: q.question, filePath, pages: q.pages })),
    ...dev.unanswerable.map((q) => ({ query: q.question, filePath: null })),
  ];
  const targets = maxRightInsufficient === undefined ? {} : { targets: { maxRightInsufficient } };
  const res = await http<{ before: unknown; after: unknown }>(base, 'POST', '/admin/knowledge/grading/fit', operator, { pairs, ...targets });
  if (res.status !== 200) throw new Error(`grading fit ${res.status}: ${JSON.stringify(res.json).slice(0, 300)}`);
  if (maxRightInsufficient === undefined)
    console.log(
      `  ${language}: the grade fitted on ${pairs.length} dev questions (in sample, before → after): ${JSON.stringify(res.json.before)} → ${JSON.stringify(res.json.after)}`,
    );
  return { language, pairs: pairs.length, before: res.json.before, after: res.json.after };
}

/** Every question of the set through `/ai/chat` (a new conversation each, no model): answered when the turn quotes references. */
async function chatThrough(base: string, client: Record<string, string>, set: QuestionSet): Promise<ChatRates> {
  const turn = async (message: string) => {
    const res = await http<{ references: { page: number | null; pageEnd: number | null }[] }>(base, 'POST', '/ai/chat', client, { message });
    if (res.status !== 200) throw new Error(`chat ${res.status}: ${JSON.stringify(res.json).slice(0, 300)}`);
    return res.json.references;
  };
  const answerable: ChatOutcome[] = [];
  for (const q of set.answerable) {
    const references = await turn(q.question);
    answerable.push({ answered: references.length > 0, citesLabelledPage: references.some((r) => meetsPages(r, q.pages)) });
  }
  const unanswerableAnswered: boolean[] = [];
  for (const q of set.unanswerable) unanswerableAnswered.push((await turn(q.question)).length > 0);
  return chatRates(answerable, unanswerableAnswered);
}

/** The tenant's one document made from a PDF. */
async function pdfDocument(base: string, operator: Record<string, string>): Promise<{ id: string; pageCount: number | null; filePath: string }> {
  const res = await http<{ items: { id: string; filePath: string; mediaType?: string | null; pageCount?: number | null }[] }>(
    base,
    'GET',
    '/admin/knowledge/documents?limit=100',
    operator,
  );
  if (res.status !== 200) throw new Error(`documents: ${res.status}`);
  const pdfs = res.json.items.filter((d) => d.mediaType === 'application/pdf' || (d.pageCount ?? null) !== null);
  const doc = pdfs[0] ?? res.json.items[0];
  if (!doc || res.json.items.length !== 1) throw new Error(`expected one document, found ${res.json.items.length}`);
  return { id: doc.id, pageCount: doc.pageCount ?? null, filePath: doc.filePath };
}

/**
 * The document's chunks: `GET /admin/knowledge/documents/:id/chunks` when the API serves it, else read from the
 * database through the app's own connection (the same rows).
 */
async function readChunks(api: Api, tenantId: string, operator: Record<string, string>, documentId: string): Promise<{ chunks: BenchChunk[]; source: string }> {
  type Row = { chunkIndex: number; content: string; page: number | null; pageEnd: number | null; section: string[] | null; disabled: boolean };
  const rows: Row[] = [];
  let cursor: string | null = null;
  let res: Response;
  for (;;) {
    res = await fetch(`${api.base}/admin/knowledge/documents/${documentId}/chunks?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
      headers: operator,
    });
    if (res.status !== 200) break;
    const page = (await res.json()) as { items: Row[]; nextCursor: string | null };
    rows.push(...page.items);
    cursor = page.nextCursor;
    if (!cursor) {
      const chunks = rows
        .filter((r) => !r.disabled)
        .map((r) => ({ index: r.chunkIndex, content: r.content, page: r.page, pageEnd: r.pageEnd ?? r.page, section: r.section ?? [] }));
      return { chunks, source: 'GET /admin/knowledge/documents/:id/chunks' };
    }
  }
  if (rows.length) throw new Error(`chunks: ${res.status} after ${rows.length} chunks`);
  await res.arrayBuffer();
  const stored = (await api.app.get(DataSource).query(
    `SELECT DISTINCT ON (chunk_index) chunk_index, content, page, page_end, section
       FROM knowledge_chunk WHERE tenant_id = $1 AND document_id = $2 AND disabled_at IS NULL ORDER BY chunk_index`,
    [tenantId, documentId],
  )) as { chunk_index: number; content: string; page: number | null; page_end: number | null; section: string[] | null }[];
  return {
    chunks: stored.map((r) => ({ index: r.chunk_index, content: r.content, page: r.page, pageEnd: r.page_end ?? r.page, section: r.section ?? [] })),
    source: `database (the chunks route answered ${res.status})`,
  };
}

// ---------------------------------------------------------------- offline chunks and BM25

/** The manual extracted and chunked in this process by libs/documents with its defaults (`--offline`). */
async function offlineChunks(file: string): Promise<{ chunks: BenchChunk[]; pageCount: number | null }> {
  const doc = await extractDocument(new Uint8Array(readFileSync(file)), path.basename(file), DEFAULT_EXTRACTION_LIMITS);
  const chunks = chunkDocument(doc.blocks).map((c) => ({
    index: c.index,
    content: c.text,
    page: c.page ?? null,
    pageEnd: c.pageEnd ?? c.page ?? null,
    section: c.section,
  }));
  return { chunks, pageCount: doc.pageCount ?? null };
}

/**
 * MiniSearch (BM25) over the same chunks: their text with MiniSearch's default tokenizer for English and
 * jieba's search-mode segmentation for Chinese (MiniSearch cannot split Chinese by itself), as in
 * bench:retrieval:quality. Returns the top `k` chunks for a question.
 */
function bm25Ranker(chunks: readonly BenchChunk[], language: ManualLanguage): (question: string, k: number) => BenchChunk[] {
  const tokenize = language === 'zh' ? (text: string) => jieba.cutForSearch(text, true).filter((t) => t.trim()) : undefined;
  const mini = new MiniSearch<{ id: number; content: string }>({
    fields: ['content'],
    ...(tokenize ? { tokenize } : {}),
    searchOptions: tokenize ? { tokenize } : {},
  });
  mini.addAll(chunks.map((c) => ({ id: c.index, content: c.content })));
  const byIndex = new Map(chunks.map((c) => [c.index, c]));
  return (question, k) =>
    mini
      .search(question)
      .slice(0, k)
      .map((r) => byIndex.get(Number(r.id)) as BenchChunk);
}

function chunkStats(chunks: readonly BenchChunk[], source: string): LanguageReport['chunks'] {
  const paged = chunks.filter((c) => c.page !== null);
  return {
    count: chunks.length,
    withPage: paged.length,
    meanPageSpan: paged.length ? paged.reduce((s, c) => s + ((c.pageEnd ?? c.page!) - c.page! + 1), 0) / paged.length : 0,
    maxLength: Math.max(0, ...chunks.map((c) => c.content.length)),
    source,
  };
}

// ---------------------------------------------------------------- one language

async function runLanguage(set: QuestionSet, api: Api | null): Promise<LanguageReport> {
  const version = installedVersion(set.manual.package) ?? 'not installed';
  let importSeconds: number | null = null;
  let importUnavailable = 0;
  let importStatus: unknown = null;
  let pageCount: number | null;
  let chunks: BenchChunk[];
  let source: string;
  let ask: ((question: string) => Promise<{ passages: (Passage & { relevance: number })[]; body: LookupBody; ms: number }>) | null = null;
  let fitTenant: { operator: Record<string, string>; filePath: string } | null = null;
  let chatKey: Record<string, string> | null = null;

  if (api) {
    const tenant = await createTenant(api.base, `bench-documents-${set.language}`);
    if (chunkSizeOverride !== null) {
      // A tuning run's chunk size (the tenant's setting the import cuts with), on the dev sets.
      const res = await http(api.base, 'PUT', '/admin/knowledge/config', tenant.operator, { chunkSize: chunkSizeOverride });
      if (res.status !== 200) throw new Error(`PUT /admin/knowledge/config ${res.status}: ${JSON.stringify(res.json).slice(0, 300)}`);
    }
    const imported = await uploadAndWait(api.base, tenant.operator, set.manual.file, `debian-reference-${set.language}`);
    importSeconds = imported.seconds;
    importUnavailable = imported.unavailable;
    importStatus = imported.status;
    if (imported.status.status !== 'succeeded') throw new Error(`import ${imported.status.status}: ${JSON.stringify(imported.status).slice(0, 800)}`);
    const doc = await pdfDocument(api.base, tenant.operator);
    if (fitOnDev) fits.push(await fitOnDevQuestions(api.base, tenant.operator, set.language, doc.filePath));
    fitTenant = { operator: tenant.operator, filePath: doc.filePath };
    chatKey = withChat ? tenant.client : null;
    const reported = (imported.status.files as { documentId?: string }[] | undefined)?.[0]?.documentId;
    if (reported && reported !== doc.id) throw new Error(`the import reports document ${reported}, the tenant holds ${doc.id}`);
    pageCount = doc.pageCount;
    ({ chunks, source } = await readChunks(api, tenant.id, tenant.operator, doc.id));
    const byContent = new Map<string, BenchChunk>();
    for (const c of chunks) if (!byContent.has(c.content)) byContent.set(c.content, c);
    ask = async (question) => {
      const t0 = performance.now();
      const res = await http<LookupBody>(api.base, 'POST', '/ai/knowledge/lookup', tenant.client, {
        query: question,
        topK: TOP_K,
        sessionId: `bench-${randomUUID()}`,
      });
      const ms = performance.now() - t0;
      resultCounts.push(res.json.results?.length ?? 0);
      if (res.status !== 200) throw new Error(`lookup ${res.status}: ${JSON.stringify(res.json).slice(0, 300)}`);
      const passages = res.json.results.map((r) => {
        // The section is kept for reading a run's results (bench/results), not scored.
        if (typeof r.page === 'number')
          return { page: r.page, pageEnd: r.pageEnd ?? r.page, fromApi: true, relevance: r.relevance, section: r.section ?? null };
        // Until results carry their page: the stored chunk with the result's text.
        const chunk = byContent.get(r.content);
        return { page: chunk?.page ?? null, pageEnd: chunk?.pageEnd ?? null, fromApi: false, relevance: r.relevance };
      });
      return { passages, body: res.json, ms };
    };
  } else {
    ({ chunks, pageCount } = await offlineChunks(set.manual.file));
    source = 'libs/documents in this process (extractDocument + chunkDocument defaults)';
  }

  const manualText = chunks.map((c) => c.content).join('\n');
  const copied = [...set.answerable, ...set.unanswerable]
    .map((q) => ({ id: q.id, phrase: copiedPhrase(q.question, manualText, set.language) }))
    .filter((c): c is { id: string; phrase: string } => c.phrase !== null);
  const bm25 = bm25Ranker(chunks, set.language);
  const details: QuestionDetail[] = [];
  const arbiterOutcomes: AnswerableOutcome[] = [];
  const bm25Outcomes: AnswerableOutcome[] = [];
  const latencies: number[] = [];
  const resultCounts: number[] = [];
  const levels: Record<string, number> = {};
  const countLevel = (body: LookupBody) => {
    const key = `${body.relevanceLevel}${body.completenessHint ? `/${body.completenessHint}` : ''}`;
    levels[key] = (levels[key] ?? 0) + 1;
  };
  for (const q of set.answerable) {
    const bmTop = bm25(q.question, TOP_K).map((c) => ({ page: c.page, pageEnd: c.pageEnd }));
    const bmHit = firstHit(bmTop, q.pages, TOP_K);
    bm25Outcomes.push({ hitRank: bmHit, topHasApiPage: false, topMeets: bmTop[0] ? meetsPages(bmTop[0], q.pages) : false, insufficient: false });
    const detail: QuestionDetail = { id: q.id, pages: q.pages, bm25: { top: bmTop, hitRank: bmHit } };
    if (ask) {
      const { passages, body, ms } = await ask(q.question);
      latencies.push(ms);
      countLevel(body);
      const outcome = answerableOutcome(passages, q.pages, TOP_K, gradedInsufficient(body));
      arbiterOutcomes.push(outcome);
      detail.arbiter = { top: passages, level: body.relevanceLevel, hint: body.completenessHint, hitRank: outcome.hitRank };
    }
    details.push(detail);
  }
  const unanswerableRefusals: boolean[] = [];
  for (const q of set.unanswerable) {
    const bmTop = bm25(q.question, TOP_K).map((c) => ({ page: c.page, pageEnd: c.pageEnd }));
    const detail: QuestionDetail = { id: q.id, bm25: { top: bmTop, hitRank: -1 } };
    if (ask) {
      const { passages, body, ms } = await ask(q.question);
      latencies.push(ms);
      countLevel(body);
      unanswerableRefusals.push(gradedInsufficient(body));
      detail.arbiter = { top: passages, level: body.relevanceLevel, hint: body.completenessHint, hitRank: -1 };
    }
    details.push(detail);
  }
  const chat = ask && api && chatKey ? await chatThrough(api.base, chatKey, set) : null;
  // The curve's lookups are not the run's: its counts stop here.
  const lookupResults = [...resultCounts];
  const curve: { target: number; grading: GradingRates }[] = [];
  if (ask && api && fitCurve && fitTenant) {
    const asked = ask;
    for (const target of FIT_CURVE_TARGETS) {
      await fitOnDevQuestions(api.base, fitTenant.operator, set.language, fitTenant.filePath, target);
      const answerable: AnswerableOutcome[] = [];
      for (const q of set.answerable) {
        const { passages, body } = await asked(q.question);
        answerable.push(answerableOutcome(passages, q.pages, TOP_K, gradedInsufficient(body)));
      }
      const refused: boolean[] = [];
      for (const q of set.unanswerable) refused.push(gradedInsufficient((await asked(q.question)).body));
      curve.push({ target, grading: gradingRates(answerable, refused) });
    }
  }
  latencies.sort((a, b) => a - b);
  return {
    language: set.language,
    manual: { package: set.manual.package, version, pages: set.manual.pages, pageCount },
    importSeconds,
    importUnavailable,
    importStatus,
    chunks: chunkStats(chunks, source),
    copied,
    arbiter: ask
      ? {
          ...summarizeAnswerable(arbiterOutcomes),
          unanswerable: set.unanswerable.length,
          unanswerableInsufficient: set.unanswerable.length ? (100 * unanswerableRefusals.filter(Boolean).length) / set.unanswerable.length : 0,
          grading: gradingRates(arbiterOutcomes, unanswerableRefusals),
          lookupP50Ms: percentile(latencies, 50),
          lookupP95Ms: percentile(latencies, 95),
          resultsPerLookup: { mean: lookupResults.reduce((x, y) => x + y, 0) / Math.max(1, lookupResults.length), max: Math.max(0, ...lookupResults) },
          levels,
          chat,
          fitCurve: curve,
        }
      : null,
    bm25: summarizeAnswerable(bm25Outcomes),
    details,
  };
}

function printReport(r: LanguageReport): boolean {
  const a = r.arbiter;
  const b = r.bm25;
  const lines: string[] = [];
  let ok = true;
  const bar = (pass: boolean) => {
    ok &&= pass;
    return mark(pass);
  };
  const pageCountNote =
    r.manual.pageCount === r.manual.pages ? `${r.manual.pages} pages` : `${r.manual.pageCount ?? '?'} pages extracted, ${r.manual.pages} labelled ✗`;
  lines.push(`\n${r.manual.package} ${r.manual.version} (${pageCountNote}); chunks: ${r.chunks.count} from ${r.chunks.source}`);
  lines.push(
    `  chunks with a page: ${r.chunks.withPage}/${r.chunks.count}, mean page span ${r.chunks.meanPageSpan.toFixed(2)}, longest ${r.chunks.maxLength} characters`,
  );
  lines.push(
    r.copied.length
      ? `  ✗ questions sharing a phrase with the manual: ${r.copied.map((c) => `${c.id} "${c.phrase}"`).join(', ')}`
      : '  no question shares a phrase with the manual',
  );
  if (r.importSeconds !== null) {
    const judged = kind === 'pglite';
    lines.push(
      `  import (upload → succeeded): ${r.importSeconds.toFixed(1)} s (${r.importUnavailable} status polls answered 503)   bar ≤ ${BARS.importSeconds} s on the embedded database${judged ? ` ${bar(r.importSeconds <= BARS.importSeconds)}` : ' (not judged on PostgreSQL)'}`,
    );
  }
  const col = (s: string, w: number) => s.padEnd(w);
  lines.push(`  ${col('', 42)}${col('Arbiter', 26)}${col('BM25 (MiniSearch)', 20)}bar`);
  lines.push(
    `  ${col(`answered in the top ${TOP_K} (${b.questions} questions)`, 42)}${col(a ? pct(a.answeredTop3) : 'n/a', 26)}${col(pct(b.answeredTop3), 20)}≥ ${BARS.answeredTop3} %${a ? ` ${bar(a.answeredTop3 >= BARS.answeredTop3)}` : ''}`,
  );
  lines.push(`  ${col('answered by the top result', 42)}${col(a ? pct(a.answeredTop1) : 'n/a', 26)}${col(pct(b.answeredTop1), 20)}`);
  lines.push(`  ${col(`MRR@${TOP_K}`, 42)}${col(a ? a.mrrAt3.toFixed(3) : 'n/a', 26)}${col(b.mrrAt3.toFixed(3), 20)}`);
  if (a) {
    const fromApi = r.details.some((d) => d.arbiter?.top.some((p) => p.fromApi));
    lines.push(
      `  ${col(`page cited correctly (of ${a.answeredCount} answered)`, 42)}${col(fromApi ? pct(a.pageCited) : 'n/a: no page in results', 26)}${col('n/a', 20)}≥ ${BARS.pageCited} % ${bar(fromApi && a.pageCited >= BARS.pageCited)}`,
    );
    lines.push(
      `  ${col(`unanswerable graded INSUFFICIENT (${a.unanswerable})`, 42)}${col(pct(a.unanswerableInsufficient), 26)}${col('n/a', 20)}≥ ${BARS.unanswerableInsufficient} % ${bar(a.unanswerableInsufficient >= BARS.unanswerableInsufficient)}`,
    );
    lines.push(
      `  ${col(`page cited when answer offered (${a.offeredCount})`, 42)}${col(fromApi ? pct(a.citedWhenOffered) : 'n/a: no page in results', 26)}${col('n/a', 20)}(not a bar: of those not graded INSUFFICIENT)`,
    );
    lines.push(`  ${col('answerable graded INSUFFICIENT', 42)}${col(pct(a.answerableInsufficient), 26)}${col('n/a', 20)}`);
    const g = a.grading;
    lines.push(
      `  grading (issue 23's rates): right top-1 refused ${pct(g.rightRefused)} (of ${g.rightTops}; ≤ 15 %), wrong top-1 not INSUFFICIENT ${pct(g.wrongNotInsufficient)} (of ${g.wrongTops}, unanswerable included; ≤ 15 %), unanswerable refused ${pct(g.unanswerableRefused)} (≥ 75 %)`,
    );
    if (a.chat)
      lines.push(
        `  through /ai/chat (${a.chat.questions} questions, no model): answered citing a labelled page ${pct(a.chat.answeredRight)}, answered otherwise ${pct(a.chat.answeredWrong)}, refused ${pct(a.chat.refused)}; unanswerable refused ${pct(a.chat.unanswerableRefused)}; of the answerable ones answered, a labelled page among the references ${pct(a.chat.citedWhenAnswered)}`,
      );
    if (a.fitCurve.length)
      lines.push(
        `  the dev fit's trade-off curve on these questions (target: right refused / wrong not INSUFFICIENT / unanswerable refused, %): ` +
          a.fitCurve
            .map(
              (p) =>
                `${(100 * p.target).toFixed(0)}%: ${p.grading.rightRefused.toFixed(1)}/${p.grading.wrongNotInsufficient.toFixed(1)}/${p.grading.unanswerableRefused.toFixed(1)}`,
            )
            .join('  '),
      );
    lines.push(
      `  results per lookup (topK ${TOP_K}): mean ${a.resultsPerLookup.mean.toFixed(2)}, max ${a.resultsPerLookup.max}` +
        (a.resultsPerLookup.max < TOP_K ? ' — lookups return one result per document, so the top 3 of one manual is its best chunk' : ''),
    );
    lines.push(`  levels ${JSON.stringify(a.levels)}; lookup p50 ${a.lookupP50Ms.toFixed(1)} ms, p95 ${a.lookupP95Ms.toFixed(1)} ms (sequential)`);
  }
  console.log(lines.join('\n'));
  return ok;
}

// ---------------------------------------------------------------- health mode

const omitLatencies = ({ latencies: _latencies, ...rest }: LatencyStats) => rest;

async function runHealth(): Promise<boolean> {
  const manuals = MANUAL_LANGUAGES.map((l) => loadQuestionSet(l).manual);
  for (const m of manuals) {
    const problem = manualProblem(m);
    if (problem) throw new Error(problem);
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'arbiter-large-pdf-'));
  let api: Api | undefined;
  let client: ChildProcess | undefined;
  try {
    const large = buildLargePdf(
      manuals.map((m) => m.file),
      dir,
      LARGE_PDF_MAX_BYTES,
      LARGE_PDF_MAX_PAGES,
    );
    console.log(`large PDF: ${(large.bytes / 1024 / 1024).toFixed(1)} MiB, ${large.pages} pages (copies of both manuals merged by qpdf, streams uncompressed)`);
    // Made before the API starts: qpdf runs synchronously, and the API shares this process.
    const changed = buildChangedPdf(large.file, mkdtempSync(path.join(dir, 'changed-')), reuploadDrops);
    console.log(
      `changed PDF for the re-upload: ${(changed.bytes / 1024 / 1024).toFixed(1)} MiB, ${changed.pages} pages (its ${reuploadDrops} page left out), the same name`,
    );
    api = await startApi();
    const tenant = await createTenant(api.base, 'bench-documents-large');
    // A neighbour with a small knowledge base looks up while the file imports: what its chat clients see.
    const neighbour = await createTenant(api.base, 'bench-documents-neighbour');
    const seeded = await http(api.base, 'POST', '/admin/knowledge/documents/bulk', neighbour.operator, [
      ...DEMO_KNOWLEDGE.map(({ filePath, title, content, domain, keywords }) => ({ filePath, title, content, domain, keywords: [...keywords] })),
    ]);
    if (seeded.status !== 200) throw new Error(`neighbour's documents: ${seeded.status}`);
    client = fork(path.join(root, 'bench/documents/health-client.ts'), [], {
      cwd: root,
      execArgv: ['--import', './bench/support/register.mjs'],
      env: { ...process.env, TARGET_URL: api.base, LOOKUP_KEY: neighbour.clientKey },
    });
    const load = client;
    const next = <T>(type: string) =>
      new Promise<T>((resolve) => load.once('message', (m: { type: string }) => (m.type === type ? resolve(m as T) : undefined)));
    await next('ready');
    // The phase ends (its requests answered) even when the work fails, so none reaches a closing API.
    const phase = async (name: string, during: () => Promise<void>): Promise<{ stats: LatencyStats; lookup: LatencyStats; error: unknown }> => {
      const started = next('started');
      load.send({ type: 'phase', name });
      await started;
      const error = await during().then(
        () => null,
        (e: unknown) => e,
      );
      const result = next<{ stats: LatencyStats; lookup: LatencyStats }>('result');
      load.send({ type: 'stop' });
      const { stats, lookup } = await result;
      return { stats, lookup, error };
    };
    await phase('warm-up', () => sleep(3000));
    const { stats: idle, lookup: idleLookup } = await phase('idle', () => sleep(idleSeconds * 1000));
    // Two phases: the upload (the request until its 202: the body read, checked and stored) and the import job.
    let imported: ImportOutcome | undefined;
    let t0 = performance.now();
    let importId: string | undefined;
    let uploadSeconds = Number.NaN;
    const uploading = await phase('upload', async () => {
      importId = await uploadFromOwnProcess(api!.base, tenant.operator, large.file, 'debian-reference-large', () => (t0 = performance.now()));
      uploadSeconds = (performance.now() - t0) / 1000;
    });
    const job = uploading.error
      ? { stats: null, lookup: null, error: uploading.error }
      : await phase('job', async () => {
          imported = { ...(await waitForImport(api!.base, tenant.operator, importId as string, t0)), uploadSeconds };
        });
    const error = job.error;
    const during = mergeLatencyStats(uploading.stats, job.stats);
    const lookupDuring = mergeLatencyStats(uploading.lookup, job.lookup);
    const fmt = (s: LatencyStats) =>
      `p50 ${s.p50} ms, p95 ${s.p95} ms, p99 ${s.p99} ms, max ${s.max} ms (${s.requests} requests, ${s.errors} errors, statuses ${JSON.stringify(s.statuses)})`;
    console.log(`GET /health idle:             ${fmt(idle)}`);
    console.log(`GET /health during the upload: ${fmt(uploading.stats)}`);
    if (job.stats) console.log(`GET /health during the job:    ${fmt(job.stats)}`);
    console.log(`GET /health upload + job:      ${fmt(during)}`);
    // Not a bar: a neighbour's lookups wait while the file's one write transaction holds the embedded database's
    // one backend (docs/hot-paths.md "Still open").
    console.log(`neighbour's POST /ai/knowledge/lookup idle:         ${fmt(idleLookup)}`);
    console.log(`neighbour's POST /ai/knowledge/lookup upload + job: ${fmt(lookupDuring)}`);
    if (error) console.log(`the import did not finish: ${String(error)}`);
    // A file can fail inside an import that succeeds (e.g. PARSE_TIMEOUT on a loaded machine): say so, not crash.
    const doc =
      imported?.status.status === 'succeeded' ? await pdfDocument(api.base, tenant.operator).catch((e: unknown) => (console.log(String(e)), null)) : null;
    if (imported)
      console.log(
        `import (upload → ${imported.status.status}): ${imported.seconds.toFixed(1)} s (upload answered 202 after ${imported.uploadSeconds.toFixed(1)} s; ` +
          `${imported.unavailable} status polls answered 503 and were retried)${doc ? `, ${doc.pageCount} pages` : ''}; ${JSON.stringify(imported.status).slice(0, 600)}`,
      );
    // The operator then uploads a changed version of the file (its last page gone) under the same name: the re-upload
    // replaces the document in one write transaction (docs/documents.md "Re-upload"; not written in groups, docs/hot-paths.md
    // "A large file's write in groups"). Reported with the bar's measure, not judged: the bar is of a file's import.
    let reimported: ImportOutcome | undefined;
    const reupload = doc
      ? await phase('re-upload', async () => {
          let r0 = performance.now();
          const id = await uploadFromOwnProcess(api!.base, tenant.operator, changed.file, 'debian-reference-large', () => (r0 = performance.now()));
          const sent = (performance.now() - r0) / 1000;
          reimported = { ...(await waitForImport(api!.base, tenant.operator, id, r0)), uploadSeconds: sent };
        })
      : null;
    if (reupload) {
      console.log(
        `re-upload of the file without its ${reuploadDrops} page: ${reupload.error ? String(reupload.error) : `${reimported?.status.status} after ${reimported?.seconds.toFixed(1)} s`}; ${JSON.stringify(reimported?.status.files ?? null).slice(0, 400)}`,
      );
      console.log(`GET /health during the re-upload:                    ${fmt(reupload.stats)}`);
      console.log(`neighbour's POST /ai/knowledge/lookup during the re-upload: ${fmt(reupload.lookup)}`);
    }
    // The operator then deletes the large document: what the neighbour sees meanwhile (reported, not a bar;
    // docs/hot-paths.md "A large document's removal in groups"). The phase lasts at least 3 s so a quick delete
    // still has samples around it.
    let deleteSeconds = Number.NaN;
    const deletion = doc
      ? await phase('delete', async () => {
          const started = performance.now();
          const res = await fetch(`${api!.base}/admin/knowledge/documents/${doc.id}`, { method: 'DELETE', headers: tenant.operator });
          await res.arrayBuffer();
          deleteSeconds = (performance.now() - started) / 1000;
          if (res.status !== 204) throw new Error(`DELETE the large document: ${res.status}`);
          await sleep(Math.max(0, 3000 - (performance.now() - started)));
        })
      : null;
    if (deletion) {
      console.log(`DELETE the large document: ${deletion.error ? String(deletion.error) : `204 after ${deleteSeconds.toFixed(2)} s`}`);
      console.log(`GET /health during the delete:                    ${fmt(deletion.stats)}`);
      console.log(`neighbour's POST /ai/knowledge/lookup during the delete: ${fmt(deletion.lookup)}`);
    }
    const ok = !error && during.p99 <= BARS.healthP99Ms && during.errors === 0 && imported?.status.status === 'succeeded';
    const judged = kind === 'pglite';
    console.log(`bar: /health p99 ≤ ${BARS.healthP99Ms} ms during the import on the embedded database: ${judged ? mark(ok) : 'not judged on PostgreSQL'}`);
    console.log(
      `results: ${writeResult('documents-health', { db: kind, quiet, loadAverage: os.loadavg(), pdf: { bytes: large.bytes, pages: large.pages }, idle: omitLatencies(idle), upload: omitLatencies(uploading.stats), job: job.stats ? omitLatencies(job.stats) : null, during: omitLatencies(during), neighbourLookup: { idle: omitLatencies(idleLookup), during: omitLatencies(lookupDuring), reupload: reupload ? omitLatencies(reupload.lookup) : null, delete: deletion ? omitLatencies(deletion.lookup) : null }, reupload: reupload ? { health: omitLatencies(reupload.stats), import: reimported ?? null, error: reupload.error ? String(reupload.error) : null } : null, delete: deletion ? { seconds: deleteSeconds, health: omitLatencies(deletion.stats), error: deletion.error ? String(deletion.error) : null } : null, import: imported ?? null, error: error ? String(error) : null })}`,
    );
    load.send({ type: 'exit' });
    return !judged || ok;
  } finally {
    // The client stops before the API closes: requests to a closing API would only add noise.
    if (client && client.exitCode === null && client.signalCode === null) {
      const exited = new Promise((resolve) => client!.once('exit', resolve));
      client.kill();
      await exited;
    }
    await api?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  console.log(
    `bench:documents ${healthMode ? '--health' : offline ? '--offline' : ''} on ${offline ? 'no database' : kind === 'pglite' ? 'the embedded database' : 'PostgreSQL'}; ` +
      `${quiet ? 'declared quiet (BENCH_QUIET=1)' : 'NOT QUIET: figures are for debugging only'}; load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
  );
  if (healthMode) {
    const ok = await runHealth();
    process.exitCode = ok ? 0 : 1;
    return;
  }
  const languages = (process.env.BENCH_LANGS ?? 'en,zh').split(',') as ManualLanguage[];
  const split = (process.env.BENCH_QUESTIONS ?? 'held-out') as QuestionSplit;
  if (!QUESTION_SPLITS.includes(split)) throw new Error(`BENCH_QUESTIONS must be one of ${QUESTION_SPLITS.join(', ')}`);
  if (fitOnDev && (split !== 'held-out' || offline)) throw new Error('BENCH_FIT=dev fits on the dev questions and asks the held-out ones (not with --offline)');
  if (fitCurve && !fitOnDev) throw new Error('BENCH_FIT_CURVE=1 needs BENCH_FIT=dev');
  console.log(`questions: the ${split} sets${split === 'dev' ? " (tuning figures, not the bars' report)" : ''}`);
  const sets = languages.map((l) => loadQuestionSet(l, split));
  for (const set of sets) {
    const problems = questionSetProblems(set);
    if (problems.length) throw new Error(`${questionSetFile(set.language, split)}: ${problems.join('; ')}`);
    const problem = manualProblem(set.manual);
    if (problem) {
      console.error(problem);
      process.exitCode = 2;
      return;
    }
    console.log(
      `${set.manual.package} ${installedVersion(set.manual.package)}: ${set.answerable.length} answerable + ${set.unanswerable.length} unanswerable questions`,
    );
  }
  const api = offline ? null : await startApi();
  const reports: LanguageReport[] = [];
  let ok = true;
  try {
    for (const set of sets) {
      const report = await runLanguage(set, api);
      reports.push(report);
      ok = printReport(report) && ok;
    }
  } finally {
    await api?.close();
  }
  console.log(
    `\nresults: ${writeResult(offline ? 'documents-offline' : 'documents', { db: offline ? null : kind, split, fits, quiet, loadAverage: os.loadavg(), reports })}`,
  );
  process.exitCode = offline || ok ? 0 : 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
