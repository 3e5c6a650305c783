import { Injectable, Logger } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import type { RawBuilder } from '@arbiter/database';
import type { DiagnosisSessionEntity } from './entities/diagnosis-session.entity.js';
import type { SessionViewExtras } from './session-view.js';

/** Called once a session reached SUCCESS or FAILED (ingested or produced by chat). */
export type SessionFinishedHandler = (tenantId: TenantId, session: DiagnosisSessionEntity) => Promise<void>;

/**
 * A finished-session hook's writes, planned so that they commit in the session's finish statement
 * (one round trip, atomic with `hooks_done = true`; docs/hot-paths.md "Chat turn").
 */
export interface FinishPlan {
  /** Values of session columns set by the finish UPDATE itself (e.g. the rule self-evaluation). */
  session?: { selfEvaluation?: DiagnosisSessionEntity['selfEvaluation'] };
  /**
   * A data-modifying statement of the hook's own tables, run as a CTE of the finish statement. It writes nothing when
   * the session is not the tenant's by reading the session by its key, not from the finish's own CTE: on Citus an
   * `INSERT … SELECT` of a CTE's rows is copied to every worker (docs/SCALING.md "Hot paths on one shard"). It should
   * end with `RETURNING` something: `done` gets the row count.
   */
  cte?: () => RawBuilder<unknown>;
  /** Called after the finish statement committed (metrics, logs). */
  done?: (cteRows: number) => void;
}

/**
 * Plans a hook's writes for a session as it will be once finished; `null` when this session needs the
 * hook's ordinary handler (e.g. an LLM call or a queued job): the finish then runs the handlers.
 */
export type SessionFinishPlanner = (tenantId: TenantId, session: DiagnosisSessionEntity) => FinishPlan | null;

/** Adds module-owned fields (e.g. coverage) to session views, for many sessions in one query. */
export type SessionViewEnricher = (tenantId: TenantId, sessionIds: string[]) => Promise<Map<string, Partial<SessionViewExtras>>>;

/**
 * The seam between the sessions lib and the modules that react to sessions (evaluation, coverage):
 * they register here in onModuleInit; sessions code never imports them.
 */
@Injectable()
export class SessionHooks {
  private readonly logger = new Logger('SessionHooks');
  private readonly finishedHandlers: { name: string; handler: SessionFinishedHandler; planner?: SessionFinishPlanner }[] = [];
  private readonly enrichers: { name: string; enrich: SessionViewEnricher }[] = [];

  /**
   * `planner` (optional) lets the hook's writes join the finish statement of a live run (chat); the
   * handler stays what ingest and the `sessions.repair` job run, and must write the same.
   */
  onFinished(name: string, handler: SessionFinishedHandler, planner?: SessionFinishPlanner): void {
    this.finishedHandlers.push({ name, handler, ...(planner ? { planner } : {}) });
  }

  /**
   * Every hook's plan for this session, in registration order; null when a hook has no planner, its
   * planner declines, or it throws (logged): the caller then runs the handlers (`sessionFinished`).
   */
  planFinished(tenantId: TenantId, session: DiagnosisSessionEntity): FinishPlan[] | null {
    const plans: FinishPlan[] = [];
    for (const { name, planner } of this.finishedHandlers) {
      if (!planner) return null;
      try {
        const plan = planner(tenantId, session);
        if (!plan) return null;
        plans.push(plan);
      } catch (error) {
        this.logger.warn({ msg: 'session-finished planner failed; running the handlers', handler: name, sessionId: session.id, err: (error as Error).message });
        return null;
      }
    }
    return plans;
  }

  addViewEnricher(name: string, enrich: SessionViewEnricher): void {
    this.enrichers.push({ name, enrich });
  }

  /**
   * Runs every handler in registration order; one failing handler is logged and does not stop the
   * others. Returns whether all of them succeeded (handlers must be idempotent: a crash or a failure
   * makes the `sessions.repair` job run them all again).
   */
  async sessionFinished(tenantId: TenantId, session: DiagnosisSessionEntity): Promise<boolean> {
    let ok = true;
    for (const { name, handler } of this.finishedHandlers) {
      try {
        await handler(tenantId, session);
      } catch (error) {
        ok = false;
        this.logger.error({ msg: 'session-finished handler failed', handler: name, sessionId: session.id, err: (error as Error).message });
      }
    }
    return ok;
  }

  async enrich(tenantId: TenantId, sessionIds: string[]): Promise<Map<string, Partial<SessionViewExtras>>> {
    const merged = new Map<string, Partial<SessionViewExtras>>();
    if (!sessionIds.length) return merged;
    for (const { enrich } of this.enrichers) {
      const part = await enrich(tenantId, sessionIds);
      for (const [id, extras] of part) merged.set(id, { ...merged.get(id), ...extras });
    }
    return merged;
  }
}
