import { Injectable, Logger } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import type { RouteResult } from './routing/index.js';

/** Where a routing decision was asked for: `POST /ai/intent/route` or a chat turn. */
export type RoutingDecisionSource = 'route' | 'chat';

/** Who asked for a routing decision (the chat passes its session). */
export interface RoutingDecisionOrigin {
  source: RoutingDecisionSource;
  sessionId?: string;
}

/** One routing decision as the router made it (listeners must not change it: the caller still uses it). */
export interface RoutingDecisionEvent {
  tenantId: TenantId;
  message: string;
  result: RouteResult;
  /** The cache versions of the rules and the config the router used (`intent_tenant_config`). */
  versions: { rules: string; config: string };
  /** Wall time of the decision: router lookup + routing. */
  latencyMs: number;
  source: RoutingDecisionSource;
  sessionId: string | null;
  decidedAt: Date;
}

/** Called synchronously after each decision, on the request path: enqueue only, never await I/O. */
export type RoutingDecisionListener = (event: RoutingDecisionEvent) => void;

/**
 * The seam between the intent lib and the modules that react to routing decisions (the intent-learning
 * lib's decision log): they register here in onModuleInit; intent code never imports them.
 */
@Injectable()
export class IntentDecisionHooks {
  private readonly logger = new Logger('IntentDecisionHooks');
  private readonly listeners: { name: string; listener: RoutingDecisionListener }[] = [];

  onDecision(name: string, listener: RoutingDecisionListener): void {
    this.listeners.push({ name, listener });
  }

  /** Runs every listener; one that throws is logged and never fails the routing request. */
  emit(event: RoutingDecisionEvent): void {
    for (const { name, listener } of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.logger.warn({ msg: 'routing decision listener failed', listener: name, err: error instanceof Error ? error.message : String(error) });
      }
    }
  }
}
