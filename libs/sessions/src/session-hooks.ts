import { Injectable, Logger } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import type { DiagnosisSessionEntity } from './diagnosis-session.entity.js';
import type { SessionViewExtras } from './session-view.js';

/** Called once a session reached SUCCESS or FAILED (ingested or produced by chat). */
export type SessionFinishedHandler = (tenantId: TenantId, session: DiagnosisSessionEntity) => Promise<void>;
/** Adds module-owned fields (e.g. coverage) to session views, for many sessions in one query. */
export type SessionViewEnricher = (tenantId: TenantId, sessionIds: string[]) => Promise<Map<string, Partial<SessionViewExtras>>>;

/**
 * The seam between the sessions lib and the modules that react to sessions (evaluation, coverage):
 * they register here in onModuleInit; sessions code never imports them.
 */
@Injectable()
export class SessionHooks {
  private readonly logger = new Logger('SessionHooks');
  private readonly finishedHandlers: { name: string; handler: SessionFinishedHandler }[] = [];
  private readonly enrichers: { name: string; enrich: SessionViewEnricher }[] = [];

  onFinished(name: string, handler: SessionFinishedHandler): void {
    this.finishedHandlers.push({ name, handler });
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
