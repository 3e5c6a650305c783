import type { TenantId } from '@arbiter/common';
import { decideStoredSession, type RejectedSession } from './coverage-decider.js';
import type { CandidateSession, KeysetPosition } from './coverage-backfill.repository.js';
import type { DecisionRow } from './coverage.repository.js';
import type { CoverageEvaluator } from './evaluator/coverage.types.js';
import { type BackgroundStep, runStepNow } from '@arbiter/database';

/** What the backfill needs from storage (CoverageBackfillRepository implements it; tests may wrap it). */
export interface BackfillStorage {
  nextUndecided(
    tenantId: TenantId,
    evaluatorVersion: string,
    after: KeysetPosition | null,
    window: { fromTs: string | null; toTs: string | null },
    limit: number,
  ): Promise<CandidateSession[]>;
  /** One statement, so one batch commits atomically; ON CONFLICT makes it idempotent. */
  insertDecisions(tenantId: TenantId, rows: readonly DecisionRow[]): Promise<number>;
}

export interface BackfillParams {
  evaluatorVersion: string;
  /** Session created_at window [fromTs, toTs), ISO timestamps; null = unbounded. */
  fromTs: string | null;
  toTs: string | null;
  batchSize: number;
}

/** Progress, saved after every committed batch; a restart continues from `cursor`. */
export interface BackfillState {
  cursor: KeysetPosition | null;
  /** Sessions read (each at most once per run: the keyset only moves forward). */
  scanned: number;
  /** Decisions this run inserted. */
  decided: number;
  /** Sessions that got a decision from someone else between the read and the insert (the finish hook). */
  alreadyDecided: number;
  /** Sessions the evaluator refused (malformed stored references): reported, not fatal. */
  rejected: number;
  /** The first MAX_REJECTED_SAMPLES of them. */
  rejectedSamples: RejectedSession[];
  batches: number;
  done: boolean;
}

export const MAX_REJECTED_SAMPLES = 50;

export function initialBackfillState(): BackfillState {
  return { cursor: null, scanned: 0, decided: 0, alreadyDecided: 0, rejected: 0, rejectedSamples: [], batches: 0, done: false };
}

export interface BackfillRunOptions {
  /** Called after each batch committed; persist it to resume after a crash. */
  onBatch?: (state: BackfillState) => Promise<void>;
  /** Checked between batches; a stopped run returns with `done: false` and resumes later. */
  signal?: AbortSignal;
  /**
   * Runs each database step (a page's read or decision, an insert): the job passes its `BackgroundGate` turn, so
   * other tenants' requests run between the pages (docs/hot-paths.md "Imports: foreground first").
   */
  step?: BackgroundStep;
}

/**
 * Keyset-batched, idempotent, resumable coverage backfill for one tenant and evaluator version.
 * Each batch: read the next `batchSize` succeeded sessions after the cursor that lack a decision,
 * evaluate them in memory, insert the decisions in one statement (ON CONFLICT DO NOTHING), then
 * save the state. A crash between insert and save only means the next run re-reads sessions that
 * now have a decision — the NOT EXISTS filter drops them — so nothing is skipped or doubled.
 * The next page is read while the current one is written (two connections), since it only depends
 * on the cursor. Memory is O(batchSize).
 */
export async function runCoverageBackfill(
  storage: BackfillStorage,
  evaluator: CoverageEvaluator,
  tenantId: TenantId,
  params: BackfillParams,
  resumeFrom: BackfillState | null,
  options: BackfillRunOptions = {},
): Promise<BackfillState> {
  const state: BackfillState = resumeFrom ? { ...resumeFrom, rejectedSamples: [...resumeFrom.rejectedSamples], done: false } : initialBackfillState();
  const window = { fromTs: params.fromTs, toTs: params.toTs };
  const step = options.step ?? runStepNow;
  const read = (after: KeysetPosition | null) => step(() => storage.nextUndecided(tenantId, params.evaluatorVersion, after, window, params.batchSize));

  let page = await read(state.cursor);
  while (page.length > 0) {
    if (options.signal?.aborted) return state;
    const last = page[page.length - 1] as CandidateSession;
    const cursor = { createdAt: last.createdAt, id: last.id };
    const next = page.length < params.batchSize ? Promise.resolve<CandidateSession[]>([]) : read(cursor);
    // Keep the prefetch from becoming an unhandled rejection if the insert below throws first.
    next.catch(() => undefined);

    const rows: DecisionRow[] = [];
    for (const session of page) {
      const outcome = decideStoredSession(evaluator, tenantId, session);
      if (outcome.ok) rows.push(outcome.row);
      else {
        state.rejected++;
        if (state.rejectedSamples.length < MAX_REJECTED_SAMPLES) state.rejectedSamples.push(outcome.rejected);
      }
    }
    const inserted = await step(() => storage.insertDecisions(tenantId, rows));
    state.decided += inserted;
    state.alreadyDecided += rows.length - inserted;
    state.scanned += page.length;
    state.batches++;
    state.cursor = cursor;
    await options.onBatch?.(state);
    page = await next;
  }
  state.done = true;
  return state;
}

/** What the set-based backfill needs from storage (CoverageBackfillRepository implements it). */
export interface SetBasedBackfillStorage {
  /** One page decided in SQL where SQL can (see coverage-v1-sql.ts); the rest comes back to be decided here. */
  decideV1Page(
    tenantId: TenantId,
    evaluatorVersion: string,
    after: KeysetPosition | null,
    window: { fromTs: string | null; toTs: string | null },
    limit: number,
  ): Promise<{ scanned: number; decidedInSql: number; inserted: number; last: KeysetPosition | null; rest: CandidateSession[] }>;
  insertDecisions(tenantId: TenantId, rows: readonly DecisionRow[]): Promise<number>;
}

/**
 * The v1 backfill, set-based (docs/hot-paths.md, "Coverage backfill"): each page is one statement that
 * reads, decides and inserts inside the database; the few sessions SQL leaves (text outside its
 * alphabet, malformed references) are decided by `evaluator` here and inserted like the row-by-row
 * backfill does. Same state, checkpoints and guarantees as `runCoverageBackfill` (a crash re-reads the
 * page from the last checkpoint; the NOT EXISTS filter drops what was decided), and a checkpoint of one
 * resumes the other. Memory is O(rows SQL leaves per page).
 */
export async function runSetBasedCoverageBackfill(
  storage: SetBasedBackfillStorage,
  evaluator: CoverageEvaluator,
  tenantId: TenantId,
  params: BackfillParams,
  resumeFrom: BackfillState | null,
  options: BackfillRunOptions = {},
): Promise<BackfillState> {
  const state: BackfillState = resumeFrom ? { ...resumeFrom, rejectedSamples: [...resumeFrom.rejectedSamples], done: false } : initialBackfillState();
  const window = { fromTs: params.fromTs, toTs: params.toTs };
  const step = options.step ?? runStepNow;
  for (;;) {
    if (options.signal?.aborted) return state;
    const page = await step(() => storage.decideV1Page(tenantId, params.evaluatorVersion, state.cursor, window, params.batchSize));
    if (page.scanned === 0 || !page.last) break;
    const rows: DecisionRow[] = [];
    for (const session of page.rest) {
      const outcome = decideStoredSession(evaluator, tenantId, session);
      if (outcome.ok) rows.push(outcome.row);
      else {
        state.rejected++;
        if (state.rejectedSamples.length < MAX_REJECTED_SAMPLES) state.rejectedSamples.push(outcome.rejected);
      }
    }
    const inserted = page.inserted + (rows.length ? await step(() => storage.insertDecisions(tenantId, rows)) : 0);
    state.decided += inserted;
    state.alreadyDecided += page.decidedInSql + rows.length - inserted;
    state.scanned += page.scanned;
    state.batches++;
    state.cursor = page.last;
    await options.onBatch?.(state);
    if (page.scanned < params.batchSize) break;
  }
  state.done = true;
  return state;
}
