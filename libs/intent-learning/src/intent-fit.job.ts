import { Injectable, Logger } from '@nestjs/common';
import { fitRouting, IntentFitObserver, type FitTargets } from '@arbiter/intent';
import { isRunHandedOver, JOB_CATALOG, JobHandler, type JobContext, type JobName, type JobRunner } from '@arbiter/jobs';
import { IntentFitRepository } from './intent-fit.repository.js';

export const INTENT_FIT_JOB = 'learning.intent-fit' satisfies JobName;

/**
 * `learning.intent-fit`: routes the labelled set once per aggregation (no side effects), runs the
 * cross-validated grid search and the calibration (docs/learning.md "Fit"), and stores the proposal with
 * the config version it was computed on. Idempotent: a finished fit is not recomputed; a retry starts over.
 */
@Injectable()
@JobHandler(INTENT_FIT_JOB)
export class IntentFitJob implements JobRunner<typeof INTENT_FIT_JOB> {
  private readonly logger = new Logger('IntentFitJob');

  constructor(
    private readonly fits: IntentFitRepository,
    private readonly observer: IntentFitObserver,
  ) {}

  async run(ctx: JobContext<{ fitId: string }>): Promise<void> {
    const { tenantId } = ctx;
    // Its reads and writes are turns at the BackgroundGate (docs/hot-paths.md "Imports: foreground first"); the
    // routing and the grid search between them are CPU, sliced by the observer.
    const fit = await ctx.step(() => this.fits.get(tenantId, ctx.payload.fitId));
    if (fit === null || fit.status === 'succeeded' || fit.status === 'failed') return;
    await ctx.step(() => this.fits.markRunning(tenantId, fit.id));
    try {
      const examples = await ctx.step(() => this.fits.examples(tenantId, fit.labelledSet.id));
      if (examples.length === 0) {
        await ctx.step(() => this.fits.fail(tenantId, fit.id, 'the labelled set was deleted before the fit ran'));
        return;
      }
      const observed = await this.observer.observe(
        tenantId,
        examples,
        (done, total) => ctx.progress({ processed: examples.length, details: { aggregationsRouted: done, aggregations: total } }),
        ctx.step,
      );
      const result = fitRouting(observed.byAggregation, observed.config, { targets: fit.targets as unknown as FitTargets });
      await ctx.step(() =>
        this.fits.succeed(tenantId, fit.id, observed.configVersion, {
          ...result,
          // what to PUT /admin/intent-config (with If-Match: "<configVersion>") to apply the fit
          proposedConfig: { ...result.proposed, calibration: result.calibration },
        }),
      );
    } catch (error) {
      // Stopped for a shutdown or taken over by another worker: the run resumes elsewhere, nothing failed.
      if (isRunHandedOver(error)) throw error;
      const message = error instanceof Error ? error.message : String(error);
      this.logger.warn({ msg: 'intent fit failed', tenantId, fitId: fit.id, attempt: ctx.attempt, err: message });
      if (ctx.attempt >= JOB_CATALOG[INTENT_FIT_JOB].maxAttempts)
        await ctx.step(() => this.fits.fail(tenantId, fit.id, 'the fit failed; see the job run for details'));
      throw error;
    }
  }
}
