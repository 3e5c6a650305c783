import { Injectable, Logger } from '@nestjs/common';
import { clientSafeError, type TenantId } from '@arbiter/common';
import type { EvaluateRequest } from './dto/labelled-examples.js';
import { IntentConfigService } from './intent-config.service.js';
import { IntentDecisionHooks, type RoutingDecisionOrigin } from './intent-decision-hooks.js';
import { IntentErrorCode, IntentException } from './intent.exception.js';
import { IntentMetrics } from './intent.metrics.js';
import type { IntentStatus } from './intent-status.js';
import { IntentRouterCache, type TenantRouting } from './intent-router.cache.js';
import { INTENT_LIMITS, type RoutedIntent } from './intent.types.js';
import { evaluateIntentRouting, type EvaluationReport, type IntentConfig, type RouteResult } from './routing/index.js';

/** Upper bound on waiting for a freshly compiled router's classifier before an evaluation run. */
const EVALUATION_TRAINING_WAIT_MS = 30_000;

/**
 * Hybrid intent routing for a tenant (docs/spec/intent-routing.md): the compiled router from the per-tenant cache and
 * the effective config. `route` is what `POST /ai/intent/route` and the chat pipeline call.
 */
@Injectable()
export class IntentService {
  private readonly logger = new Logger('IntentService');

  constructor(
    private readonly cache: IntentRouterCache,
    private readonly configs: IntentConfigService,
    private readonly metrics: IntentMetrics,
    private readonly decisions: IntentDecisionHooks,
  ) {}

  /** Rules and classifier versions and the training under way on this process (`GET /admin/intent/status`). */
  status(tenantId: TenantId): Promise<IntentStatus> {
    return this.cache.status(tenantId);
  }

  /** RouteResult of one message. Empty/whitespace-only or over-long messages → 400. */
  async route(tenantId: TenantId, message: string): Promise<RouteResult> {
    return (await this.routeWithRule(tenantId, message, { source: 'route' })).result;
  }

  /**
   * The RouteResult plus the rule carrying the decided intent's action / reply / confidence profile.
   * The decision is handed to the decision listeners (`IntentDecisionHooks`, synchronous, no I/O awaited).
   */
  async routeWithRule(tenantId: TenantId, message: string, origin: RoutingDecisionOrigin): Promise<RoutedIntent> {
    assertRoutable(message);
    const start = performance.now();
    const routing = await this.cache.get(tenantId);
    const result = await this.routeWith(routing, message, routing.config);
    this.decisions.emit({
      tenantId,
      message,
      result,
      versions: { rules: routing.versions.rules, config: routing.versions.config },
      latencyMs: performance.now() - start,
      source: origin.source,
      sessionId: origin.sessionId ?? null,
      decidedAt: new Date(),
    });
    const rule =
      result.finalIntent === null
        ? undefined
        : ((result.ruleId !== null ? routing.ruleById.get(result.ruleId) : undefined) ?? routing.ruleForIntent.get(result.finalIntent));
    return {
      result,
      rule: rule === undefined ? null : { id: rule.id, intent: rule.intent, action: rule.action, reply: rule.reply, confidenceProfile: rule.confidenceProfile },
      config: routing.config,
    };
  }

  /**
   * The rule that carries an intent the user picked from a clarifying question (docs/chat-clients.md
   * "Clarification"): its highest-priority enabled rule, from the cached rules (no round trip); null when
   * the intent has no enabled rule any more.
   */
  async ruleForIntent(tenantId: TenantId, intent: string): Promise<RoutedIntent['rule']> {
    const rule = (await this.cache.get(tenantId)).ruleForIntent.get(intent);
    return rule === undefined ? null : { id: rule.id, intent: rule.intent, action: rule.action, reply: rule.reply, confidenceProfile: rule.confidenceProfile };
  }

  /**
   * Human labels of intents from the cached rules (no database round trip): per intent, the description
   * of its enabled rule with the highest priority that has one. Intents without one are left out.
   */
  async intentLabels(tenantId: TenantId, intents: readonly string[]): Promise<Map<string, string>> {
    const wanted = new Set(intents);
    const best = new Map<string, { priority: number; label: string }>();
    for (const rule of (await this.cache.get(tenantId)).rules) {
      const label = rule.description?.trim();
      if (!wanted.has(rule.intent) || !rule.enabled || !label) continue;
      const current = best.get(rule.intent);
      if (current === undefined || rule.priority > current.priority) best.set(rule.intent, { priority: rule.priority, label });
    }
    return new Map([...best].map(([intent, { label }]) => [intent, label]));
  }

  /** Every intent named by a rule of the tenant (enabled or not), from the cached rules (no round trip). */
  async knownIntents(tenantId: TenantId): Promise<Set<string>> {
    return new Set((await this.cache.get(tenantId)).rules.map((r) => r.intent));
  }

  /** Routes labelled examples with the tenant's rules (and optionally a trial config) → evaluation report. */
  async evaluate(tenantId: TenantId, { examples, ...dto }: EvaluateRequest): Promise<EvaluationReport & { config: IntentConfig }> {
    const routing = await this.cache.get(tenantId);
    const cfg = dto.config !== undefined ? this.configs.resolve(routing.config, dto.config) : routing.config;
    await Promise.race([routing.trained, new Promise((resolve) => setTimeout(resolve, EVALUATION_TRAINING_WAIT_MS).unref())]);
    const report = await evaluateIntentRouting(examples, (text) => this.routeWith(routing, text, cfg), {
      ...(dto.topConfusions !== undefined ? { topConfusions: dto.topConfusions } : {}),
    });
    return { ...report, config: cfg };
  }

  private async routeWith(routing: TenantRouting, message: string, cfg: IntentConfig): Promise<RouteResult> {
    const start = performance.now();
    const result = await routing.router.route(message, cfg);
    this.metrics.observe(result, performance.now() - start);
    this.redactUpstreamErrors(result);
    return result;
  }

  /**
   * The route trace goes to clients and into stored traces: an embedding or judge failure shows
   * there as its kind (`timeout`, `upstream HTTP 500`, …); the raw text (upstream bodies, hosts,
   * ports) goes to the log, under the request id.
   */
  private redactUpstreamErrors(result: RouteResult): void {
    for (const [path, trace] of [
      ['semanticMatch', result.routeTrace.semanticMatch],
      ['llmJudge', result.routeTrace.llmJudge],
    ] as const) {
      if (trace?.error === undefined) continue;
      this.logger.warn({ msg: 'intent routing: upstream failure', path, err: trace.error });
      trace.error = clientSafeError(trace.error);
    }
  }
}

function assertRoutable(message: string): void {
  if (typeof message !== 'string' || message.trim() === '') {
    throw new IntentException(IntentErrorCode.INVALID_MESSAGE, 'message must not be empty or whitespace-only', { fields: ['message'] });
  }
  if (message.length > INTENT_LIMITS.messageLength) {
    throw new IntentException(IntentErrorCode.INVALID_MESSAGE, `message must be at most ${INTENT_LIMITS.messageLength} characters`, { fields: ['message'] });
  }
}
