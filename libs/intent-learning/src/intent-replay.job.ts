import { Injectable, Logger } from '@nestjs/common';
import { IntentSandbox } from '@arbiter/intent';
import { isRunHandedOver, JOB_CATALOG, JobHandler, resumedTotal, type JobContext, type JobName, type JobRunner } from '@arbiter/jobs';
import { IntentReplayRepository, type ReplayScope } from './intent-replay.repository.js';
import { emptyTally, replayReport, tally, type ReplayTally } from './replay-report.js';

export const INTENT_REPLAY_JOB = 'learning.intent-replay' satisfies JobName;
/** Decisions read and re-routed per step; each step saves the tally as the checkpoint. */
export const REPLAY_BATCH = 1000;
/** Work between two yields to the event loop (routing resolves in microtasks). */
const REPLAY_SLICE_MS = 10;

interface ReplayCheckpoint {
  after: { createdAt: string; id: string };
  tally: ReplayTally;
}

/**
 * `learning.intent-replay`: re-routes the logged decisions of a replay's scope, oldest first, with the
 * candidate (IntentSandbox: no log, no session, no judge) and tallies how they change. Resumable: after each
 * batch the last decision and the tally are the checkpoint, so a retry continues where the crash stopped.
 */
@Injectable()
@JobHandler(INTENT_REPLAY_JOB)
export class IntentReplayJob implements JobRunner<typeof INTENT_REPLAY_JOB> {
  private readonly logger = new Logger('IntentReplayJob');

  constructor(
    private readonly replays: IntentReplayRepository,
    private readonly sandbox: IntentSandbox,
  ) {}

  async run(ctx: JobContext<{ replayId: string }>): Promise<void> {
    const { tenantId } = ctx;
    const replay = await ctx.step(() => this.replays.get(tenantId, ctx.payload.replayId));
    if (replay === null || replay.status === 'succeeded' || replay.status === 'failed') return;
    await ctx.step(() => this.replays.markRunning(tenantId, replay.id));
    const scope: ReplayScope =
      replay.decisionIds !== null ? { decisionIds: replay.decisionIds } : { from: new Date(replay.window!.from), to: new Date(replay.window!.to) };
    try {
      const routing = await ctx.step(() => this.sandbox.prepare(tenantId, replay.candidate));
      const resumed = ctx.checkpoint as ReplayCheckpoint | null;
      const t: ReplayTally = resumed?.tally ?? emptyTally();
      let after = resumed?.after ?? null;
      // The total: what earlier attempts re-routed plus the decisions in scope after the checkpoint (recounted on resume).
      await ctx.setTotal(resumedTotal(ctx.processed, await ctx.step(() => this.replays.countDecisions(tenantId, scope, after))));
      let sliceStart = performance.now();
      for (;;) {
        // The read and the checkpoint are turns at the gate: other tenants' requests run between them
        // (docs/hot-paths.md "Imports: foreground first"); the re-routing between them is CPU, sliced below.
        const batch = await ctx.step(() => this.replays.decisions(tenantId, scope, after, REPLAY_BATCH));
        if (batch.length === 0) break;
        for (const d of batch) {
          const r = await routing.route(d.message);
          tally(
            t,
            {
              decisionId: d.id,
              message: d.message,
              before: { intent: d.intent, reason: d.reason, needClarify: d.needClarify, confidence: d.confidence },
              after: { intent: r.finalIntent, reason: r.decisionReason, needClarify: r.needClarify, confidence: r.finalConfidence },
              ...(d.labelled ? { label: d.label } : {}),
            },
            routing.judgeConfigured && r.routeTrace.llmJudge.triggered,
          );
          if (performance.now() - sliceStart >= REPLAY_SLICE_MS) {
            await new Promise((resolve) => setImmediate(resolve));
            sliceStart = performance.now();
          }
        }
        const last = batch[batch.length - 1]!;
        after = { createdAt: last.createdAt, id: last.id };
        const checkpoint: ReplayCheckpoint = { after, tally: t };
        await ctx.progress({ processed: batch.length, checkpoint });
        if (batch.length < REPLAY_BATCH) break;
      }
      await ctx.step(() =>
        this.replays.succeed(tenantId, replay.id, {
          ...replayReport(t),
          configVersion: routing.configVersion,
          rulesVersion: routing.rulesVersion,
        }),
      );
    } catch (error) {
      // Stopped for a shutdown or taken over by another worker: the run resumes elsewhere, nothing failed.
      if (isRunHandedOver(error)) throw error;
      const message = error instanceof Error ? error.message : String(error);
      this.logger.warn({ msg: 'intent replay failed', tenantId, replayId: replay.id, attempt: ctx.attempt, err: message });
      if (ctx.attempt >= JOB_CATALOG[INTENT_REPLAY_JOB].maxAttempts)
        await ctx.step(() => this.replays.fail(tenantId, replay.id, 'the replay failed; see the job run for details'));
      throw error;
    }
  }
}
