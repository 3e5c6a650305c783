import { Injectable, Logger } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import { AppConfig } from '@arbiter/config';
import { Database } from '@arbiter/database';
import { AuditLog } from '@arbiter/tenancy';
import { JobHandler, JobsService, resumedTotal, type CoverageBackfillPayload, type JobContext, type JobName, type JobRunner } from '@arbiter/jobs';
import { runCoverageBackfill, runSetBasedCoverageBackfill, type BackfillRunOptions, type BackfillState } from './coverage-backfill.js';
import { CoverageBackfillRepository } from './coverage-backfill.repository.js';
import { CoverageRepository } from './coverage.repository.js';
import { CoverageService } from './coverage.service.js';
import { CoverageEvaluatorRegistry } from './evaluator/coverage-evaluator.registry.js';
import { CoverageEvaluatorV1 } from './evaluator/coverage-evaluator.v1.js';
import { resolveOpenRange } from './report-range.js';

export const COVERAGE_BACKFILL_JOB = 'coverage.backfill' satisfies JobName;
/** Window of the scheduled sweep. */
export const SCHEDULED_SWEEP_MS = 48 * 3_600_000;

function isState(value: unknown): value is BackfillState {
  if (!value || typeof value !== 'object') return false;
  const v = value as Partial<BackfillState>;
  return typeof v.scanned === 'number' && typeof v.decided === 'number' && Array.isArray(v.rejectedSamples) && (v.cursor === null || typeof v.cursor === 'object');
}

/**
 * `coverage.backfill`: decides every succeeded session of the tenant that has no decision for the
 * version, in keyset batches; each batch commits, then the cursor is checkpointed. A retried attempt
 * (crash, lost lease) resumes from the checkpoint; sessions decided in between are skipped by the
 * query itself, so nothing is skipped or doubled. Scheduled (JOB_CATALOG, JOBS_SCHEDULES may
 * override) over the last 48 hours, to catch sessions whose finish hook failed.
 */
@Injectable()
@JobHandler(COVERAGE_BACKFILL_JOB)
export class CoverageBackfillJob implements JobRunner<typeof COVERAGE_BACKFILL_JOB> {
  private readonly logger = new Logger('CoverageBackfill');

  constructor(
    private readonly jobs: JobsService,
    private readonly repository: CoverageRepository,
    private readonly backfill: CoverageBackfillRepository,
    private readonly registry: CoverageEvaluatorRegistry,
    private readonly coverage: CoverageService,
    private readonly config: AppConfig,
    private readonly database: Database,
    private readonly audit: AuditLog,
  ) {}

  /** Validates the request (400 on an unknown version or a bad window) and enqueues the run. */
  async enqueue(tenantId: TenantId, request: { evaluatorVersion?: string; from?: string; to?: string }): Promise<string> {
    const evaluatorVersion = this.registry.get(request.evaluatorVersion ?? this.registry.currentVersion).version;
    const { from, to } = resolveOpenRange(request);
    const timeZone = await this.repository.tenantTimeZone(tenantId);
    const bounds = await this.backfill.dayBounds(from, to, timeZone);
    const payload: CoverageBackfillPayload = { evaluatorVersion, from, to, timeZone, ...bounds };
    // The run and its audit entry in one transaction (docs/http-edge.md "Audit log"); the worker is woken after the commit.
    const runId = await this.database.transaction(async (tx) => {
      const id = await this.jobs.enqueueWithin(tx, tenantId, COVERAGE_BACKFILL_JOB, payload, { trigger: 'manual' });
      await this.audit.record(tx, tenantId, {
        action: 're_evaluate',
        resourceType: 'coverage_backfill',
        resourceId: id,
        label: `coverage ${evaluatorVersion}`,
        summary: { evaluatorVersion, from, to, timeZone },
      });
      return id;
    });
    this.jobs.wakeUp();
    return runId;
  }

  async run(ctx: JobContext<CoverageBackfillPayload>): Promise<void> {
    const evaluator = this.registry.get(ctx.payload.evaluatorVersion ?? this.registry.currentVersion);
    const resume = isState(ctx.checkpoint) ? ctx.checkpoint : null;
    let reported = resume ? { scanned: resume.scanned, rejected: resume.rejected, decided: resume.decided } : { scanned: 0, rejected: 0, decided: 0 };
    // Scheduled runs (empty payload) only sweep the last two days: the finish hook decides live
    // sessions, so the sweep just catches the ones whose hook failed. Manual runs take their window.
    const scheduled = ctx.payload.evaluatorVersion === undefined;
    const fromTs = scheduled ? new Date(Date.now() - SCHEDULED_SWEEP_MS).toISOString() : (ctx.payload.fromTs ?? null);
    // v1 runs set-based (docs/hot-paths.md, "Coverage backfill"); another version row by row.
    const params = { evaluatorVersion: evaluator.version, fromTs, toTs: ctx.payload.toTs ?? null, batchSize: this.config.coverage.backfillBatchSize };
    // The total: what earlier attempts scanned plus the undecided sessions after the checkpoint (recounted on resume).
    const remaining = await ctx.step(() => this.backfill.countUndecided(ctx.tenantId, evaluator.version, resume?.cursor ?? null, { fromTs, toTs: params.toTs }));
    await ctx.setTotal(resumedTotal(ctx.processed, remaining));
    const options: BackfillRunOptions = {
      // Each page and insert is a turn at the gate: other tenants' requests run between them.
      step: ctx.step,
      onBatch: async (state) => {
        this.coverage.countBackfilled(state.decided - reported.decided);
        await ctx.progress({
          processed: state.scanned - reported.scanned,
          failed: state.rejected - reported.rejected,
          checkpoint: state,
          details: {
            evaluatorVersion: evaluator.version,
            decided: state.decided,
            alreadyDecided: state.alreadyDecided,
            rejected: state.rejected,
            rejectedSessions: state.rejectedSamples,
            batches: state.batches,
          },
        });
        reported = { scanned: state.scanned, rejected: state.rejected, decided: state.decided };
      },
    };
    const final =
      evaluator.version === CoverageEvaluatorV1.VERSION
        ? await runSetBasedCoverageBackfill(this.backfill, evaluator, ctx.tenantId, params, resume, options)
        : await runCoverageBackfill(this.backfill, evaluator, ctx.tenantId, params, resume, options);
    await ctx.progress({ details: { evaluatorVersion: evaluator.version, decided: final.decided, rejected: final.rejected, batches: final.batches, done: true } });
    if (final.rejected) this.logger.warn({ msg: 'sessions with malformed references were not decided', runId: ctx.runId, rejected: final.rejected });
  }
}
