import { Injectable, Logger } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import { IntentRulesService, IntentService } from '@arbiter/intent';
import type { ChatIntentRouter, ChatRouting } from './chat-intent.port.js';

/** The chat's view of the intent module: RouteResult + the decided rule, and rule descriptions for clarifications. */
@Injectable()
export class IntentChatRouter implements ChatIntentRouter {
  private readonly logger = new Logger('ChatRouting');

  constructor(
    private readonly intents: IntentService,
    private readonly rules: IntentRulesService,
  ) {}

  async route(tenantId: TenantId, message: string): Promise<ChatRouting> {
    const routed = await this.intents.routeWithRule(tenantId, message);
    return {
      result: routed.result,
      rule: routed.rule ? { action: routed.rule.action, reply: routed.rule.reply, confidenceProfile: routed.rule.confidenceProfile } : null,
    };
  }

  /** Best effort: a clarification without labels still lists the intent names. */
  async labels(tenantId: TenantId, intents: readonly string[]): Promise<Map<string, string>> {
    const labels = new Map<string, string>();
    for (const intent of new Set(intents)) {
      try {
        const page = await this.rules.list(tenantId, { intent, limit: 5 });
        const described = page.items.filter((r) => r.enabled && r.description?.trim()).sort((a, b) => b.priority - a.priority)[0];
        if (described?.description) labels.set(intent, described.description.trim());
      } catch (error) {
        this.logger.warn({ msg: 'intent label lookup failed', intent, err: (error as Error).message });
      }
    }
    return labels;
  }
}
