import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '@arbiter/config';
import { JobHandler, type JobContext, type JobName, type JobRunner } from '@arbiter/jobs';
import type { DiagnosisSessionEntity } from './entities/diagnosis-session.entity.js';
import { SessionsRepository } from './sessions.repository.js';
import { SessionsService } from './sessions.service.js';

export const SESSIONS_REPAIR_JOB = 'sessions.repair' satisfies JobName;
export const SESSIONS_REPAIR_BATCH = 200;
/** Hooks normally run right after the commit; only sessions finished longer ago than this are repaired. */
export const HOOKS_GRACE_MS = 120_000;

export interface SessionsRepairResult {
  abandoned: number;
  hooksRun: number;
  hooksFailed: number;
}

/**
 * `sessions.repair` — crash recovery. A process killed mid-turn leaves its session RUNNING forever
 * (feedback and evaluation answer 409, stats count it), and one killed between committing a finished
 * session and running its hooks leaves it without self-evaluation and coverage decision. Per tenant:
 * 1. sessions RUNNING for longer than SESSION_RUNNING_TIMEOUT_MS → FAILED with the reason in `error`;
 * 2. finished sessions whose hooks did not complete (these, and crashed ingests) → the hooks run.
 * Idempotent: the hooks are, and a session leaves the backlog once they all succeeded.
 */
@Injectable()
@JobHandler(SESSIONS_REPAIR_JOB)
export class SessionsRepairJob implements JobRunner<typeof SESSIONS_REPAIR_JOB> {
  private readonly logger = new Logger('SessionsRepair');

  constructor(
    private readonly repository: SessionsRepository,
    private readonly sessions: SessionsService,
    private readonly config: AppConfig,
  ) {}

  async run(ctx: Pick<JobContext, 'tenantId' | 'progress' | 'step'>): Promise<void> {
    await this.repair(ctx);
  }

  async repair(ctx: Pick<JobContext, 'tenantId' | 'progress' | 'step'>, now = new Date()): Promise<SessionsRepairResult> {
    const timeoutMs = this.config.sessions.runningTimeoutMs;
    const reason = `abandoned: still RUNNING ${Math.round(timeoutMs / 1000)} s after it started (the process running the turn stopped); closed by ${SESSIONS_REPAIR_JOB}`;
    const result: SessionsRepairResult = { abandoned: 0, hooksRun: 0, hooksFailed: 0 };
    const repairOne = async (session: DiagnosisSessionEntity) => {
      if (await this.sessions.runFinishedHooks(ctx.tenantId, session)) result.hooksRun++;
      else result.hooksFailed++;
    };
    for (;;) {
      const closed = await ctx.step(() => this.repository.failAbandoned(ctx.tenantId, new Date(now.getTime() - timeoutMs), reason, SESSIONS_REPAIR_BATCH));
      result.abandoned += closed.length;
      if (closed.length) this.logger.warn({ msg: 'abandoned RUNNING sessions closed as FAILED', tenantId: ctx.tenantId, sessionIds: closed.map((s) => s.id) });
      for (const session of closed) await repairOne(session);
      if (closed.length < SESSIONS_REPAIR_BATCH) break;
    }
    // One pass over the backlog: a session whose hooks keep failing is retried on the next tick, not in a loop.
    const pending = await ctx.step(() => this.repository.findHooksPending(ctx.tenantId, new Date(now.getTime() - HOOKS_GRACE_MS), SESSIONS_REPAIR_BATCH));
    for (const session of pending) await repairOne(session);
    await ctx.progress({ processed: result.abandoned + result.hooksRun, failed: result.hooksFailed, details: { ...result } });
    return result;
  }
}
