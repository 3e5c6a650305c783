import { describe, expect, it } from '@jest/globals';
import { asTenantId, type TenantId } from '@arbiter/common';
import { runCoverageBackfill, type BackfillState, type BackfillStorage } from './coverage-backfill.js';
import type { CandidateSession, KeysetPosition } from './coverage-backfill.repository.js';
import type { DecisionRow } from './coverage.repository.js';
import { CoverageEvaluatorV1 } from './evaluator/coverage-evaluator.v1.js';

const TENANT = asTenantId('00000000-0000-4000-8000-000000000001');

/** In-memory storage with the repository's semantics: keyset order, NOT EXISTS, ON CONFLICT DO NOTHING. */
class MemoryStorage implements BackfillStorage {
  readonly decisions = new Map<string, DecisionRow>();
  insertCalls = 0;
  constructor(readonly sessions: CandidateSession[]) {
    this.sessions.sort((a, b) => (a.createdAt === b.createdAt ? a.id.localeCompare(b.id) : a.createdAt.localeCompare(b.createdAt)));
  }
  async nextUndecided(_t: TenantId, version: string, after: KeysetPosition | null, _w: unknown, limit: number): Promise<CandidateSession[]> {
    return this.sessions
      .filter((s) => s.status === 'SUCCESS' || s.status === 'BAD_CASE')
      .filter((s) => !after || s.createdAt > after.createdAt || (s.createdAt === after.createdAt && s.id > after.id))
      .filter((s) => !this.decisions.has(`${s.id}|${version}`))
      .slice(0, limit);
  }
  async insertDecisions(_t: TenantId, rows: readonly DecisionRow[]): Promise<number> {
    this.insertCalls++;
    let n = 0;
    for (const r of rows) {
      const key = `${r.sessionId}|${r.evaluatorVersion}`;
      if (!this.decisions.has(key)) {
        this.decisions.set(key, r);
        n++;
      }
    }
    return n;
  }
}

function sessions(n: number): CandidateSession[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    // Many sessions share a timestamp: the id breaks the tie.
    createdAt: `2026-01-01 00:00:${String(Math.floor(i / 7) % 60).padStart(2, '0')}.${String(Math.floor(i / 420)).padStart(6, '0')}+00`,
    channel: i % 2 ? 'web' : 'api',
    status: i % 10 === 9 ? 'FAILED' : i % 10 === 8 ? 'BAD_CASE' : 'SUCCESS',
    query: `问题 ${i % 13}`,
    answer: i % 5 === 0 ? '未找到' : '答案',
    references: i === 42 ? [{ score: 'high' }] : i % 3 ? [{ score: 0.5 }] : [],
    media: [],
    knowledgeSearched: i % 4 === 0,
  }));
}

const PARAMS = { evaluatorVersion: 'v1', fromTs: null, toTs: null, batchSize: 37 };

describe('runCoverageBackfill', () => {
  it('decides every succeeded session once and reports the malformed one', async () => {
    const storage = new MemoryStorage(sessions(1000));
    const state = await runCoverageBackfill(storage, new CoverageEvaluatorV1(), TENANT, PARAMS, null);
    expect(state).toMatchObject({ done: true, decided: 899, rejected: 1, scanned: 900, alreadyDecided: 0 });
    expect(state.rejectedSamples).toEqual([expect.objectContaining({ sessionId: storage.sessions.find((s) => s.references && (s.references as { score: unknown }[])[0]?.score === 'high')?.id, code: 'MALFORMED_REFERENCE' })]);
    expect(storage.decisions.size).toBe(899);
    // Second run: idempotent, nothing new.
    const again = await runCoverageBackfill(storage, new CoverageEvaluatorV1(), TENANT, PARAMS, null);
    expect(again).toMatchObject({ done: true, decided: 0 });
  });

  it.each([
    ['before the insert commits', 'before'],
    ['after the insert commits, before the checkpoint', 'after'],
  ] as const)('resumes after a crash %s with nothing skipped or doubled', async (_label, when) => {
    const storage = new MemoryStorage(sessions(1000));
    let saved: BackfillState | null = null;
    let batches = 0;
    const crashing: BackfillStorage = {
      nextUndecided: (...a) => storage.nextUndecided(...a),
      insertDecisions: async (t, rows) => {
        if (++batches === 9 && when === 'before') throw new Error('crash');
        const n = await storage.insertDecisions(t, rows);
        if (batches === 9 && when === 'after') throw new Error('crash');
        return n;
      },
    };
    await expect(
      runCoverageBackfill(crashing, new CoverageEvaluatorV1(), TENANT, PARAMS, null, {
        onBatch: async (s) => {
          saved = structuredClone(s);
        },
      }),
    ).rejects.toThrow('crash');
    expect(saved).toMatchObject({ batches: 8, done: false });
    const resumed = await runCoverageBackfill(storage, new CoverageEvaluatorV1(), TENANT, PARAMS, saved);
    expect(resumed.done).toBe(true);
    expect(storage.decisions.size).toBe(899);
    expect(resumed.decided + (when === 'after' ? 37 : 0)).toBe(899);
    expect(resumed.rejected).toBe(1);
  });

  it('makes every storage call inside a step (the job passes its BackgroundGate turn)', async () => {
    const storage = new MemoryStorage(sessions(100));
    let inStep = 0;
    let outside = 0;
    let steps = 0;
    const watched: BackfillStorage = {
      nextUndecided: (...args) => {
        if (!inStep) outside++;
        return storage.nextUndecided(...args);
      },
      insertDecisions: (...args) => {
        if (!inStep) outside++;
        return storage.insertDecisions(...args);
      },
    };
    const step = async <T>(work: () => Promise<T>): Promise<T> => {
      steps++;
      inStep++;
      try {
        return await work();
      } finally {
        inStep--;
      }
    };
    const state = await runCoverageBackfill(watched, new CoverageEvaluatorV1(), TENANT, PARAMS, null, { step });
    expect(state.done).toBe(true);
    expect(outside).toBe(0);
    expect(steps).toBe(state.batches * 2); // each batch: its read, its insert
  });

  it('stops between batches when aborted and continues from the cursor', async () => {
    const storage = new MemoryStorage(sessions(500));
    const controller = new AbortController();
    const first = await runCoverageBackfill(storage, new CoverageEvaluatorV1(), TENANT, PARAMS, null, {
      signal: controller.signal,
      onBatch: async (s) => {
        if (s.batches === 3) controller.abort();
      },
    });
    expect(first).toMatchObject({ done: false, batches: 3 });
    const second = await runCoverageBackfill(storage, new CoverageEvaluatorV1(), TENANT, PARAMS, first);
    expect(second.done).toBe(true);
    expect(storage.decisions.size).toBe(449); // 450 succeeded, one malformed
    expect(second).toMatchObject({ decided: 449, rejected: 1 }); // counters carry over from the first run
  });
});
