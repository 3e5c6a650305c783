import type pg from 'pg';

/**
 * The database checks of the multi-process benchmarks (`bench:replicas`, `bench:citus`): after the load, what the
 * API acknowledged is stored exactly once and every background effect happened once. Every query joins tenant
 * tables on `tenant_id` too, so it also runs on a Citus cluster (docs/SCALING.md "Queries that would cross shards").
 */
export interface SessionChecks {
  sessions: Record<string, number>;
  stored: number;
  answered: number;
  coverage: { sessions: number; decided: number; max_per_session: number };
  jobs: { name: string; status: string; attempts: number; n: number }[];
  queuedRuns: { status: string; attempts: number; n: number }[];
  checks: {
    /** Every acknowledged session id is distinct and stored (requests cut off at the end may be stored unacknowledged: stored ≥ answered). */
    everyAnswerStoredOnce: boolean;
    noFailedSessions: boolean;
    everySucceededSessionDecidedOnce: boolean;
    everySessionEvaluated: boolean;
    queuedJobsRanOnceEach: boolean;
  };
}

/** Waits until no job run is queued or running (at most `seconds`). */
export async function waitForJobs(pool: pg.Pool, seconds = 120): Promise<void> {
  for (let wait = 0; wait < seconds; wait++) {
    const { rows } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM job_run WHERE status IN ('queued', 'running')`);
    if (!rows[0]!.n) return;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** `answered`: the session ids the API acknowledged (chat 200s, ingest 201s); `queued`: job ids it queued, each expected to run once. */
export async function checkSessions(pool: pg.Pool, answered: readonly string[], queued: readonly string[]): Promise<SessionChecks> {
  const q = async <T extends pg.QueryResultRow>(sql: string, params: unknown[] = []) => (await pool.query<T>(sql, params)).rows;
  const sessions = (await q<{ status: string; n: number }>(`SELECT status, count(*)::int AS n FROM diagnosis_session GROUP BY status`)).reduce<
    Record<string, number>
  >((m, r) => ({ ...m, [r.status]: r.n }), {});
  const stored = Object.values(sessions).reduce((s, n) => s + n, 0);
  const [coverage] = await q<SessionChecks['coverage']>(
    `SELECT count(*)::int AS sessions, count(d.session_id)::int AS decided, coalesce(max(d.n), 0)::int AS max_per_session
       FROM diagnosis_session s
       LEFT JOIN (SELECT tenant_id, session_id, count(*)::int AS n FROM coverage_decision GROUP BY tenant_id, session_id) d
         ON d.tenant_id = s.tenant_id AND d.session_id = s.id
      WHERE s.outcome = 'SUCCESS'`,
  );
  const distinct = new Set(answered);
  const [found] = await q<{ n: number }>('SELECT count(*)::int AS n FROM diagnosis_session WHERE id = ANY($1::uuid[])', [[...distinct]]);
  // PENDING: an external run a lookup recorded, which Arbiter did not execute and has no outcome to evaluate.
  const [evaluated] = await q<{ missing: number }>(
    `SELECT count(*)::int AS missing FROM diagnosis_session WHERE status NOT IN ('RUNNING', 'PENDING') AND self_evaluation IS NULL`,
  );
  const jobs = await q<SessionChecks['jobs'][number]>(`SELECT name, status, attempts, count(*)::int AS n FROM job_run GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`);
  const queuedRuns = await q<SessionChecks['queuedRuns'][number]>(
    `SELECT status, attempts, count(*)::int AS n FROM job_run WHERE id = ANY($1::uuid[]) GROUP BY 1, 2`,
    [[...queued]],
  );
  return {
    sessions,
    stored,
    answered: answered.length,
    coverage: coverage!,
    jobs,
    queuedRuns,
    checks: {
      everyAnswerStoredOnce: distinct.size === answered.length && found!.n === distinct.size && stored >= answered.length,
      noFailedSessions: !sessions.FAILED,
      everySucceededSessionDecidedOnce: coverage!.sessions === coverage!.decided && coverage!.max_per_session <= 1,
      everySessionEvaluated: evaluated!.missing === 0,
      queuedJobsRanOnceEach: queued.length
        ? queuedRuns.length === 1 && queuedRuns[0]!.status === 'succeeded' && queuedRuns[0]!.attempts === 1 && queuedRuns[0]!.n === queued.length
        : !queuedRuns.length,
    },
  };
}
