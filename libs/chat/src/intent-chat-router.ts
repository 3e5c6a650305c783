import { Injectable, Logger } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import { IntentService } from '@arbiter/intent';
import type { ChatIntentRouter, ChatIntentRule, ChatRouting } from './chat-intent.port.js';

/** The chat's view of the intent module: RouteResult + the decided rule, and rule descriptions for clarifications. */
@Injectable()
export class IntentChatRouter implements ChatIntentRouter {
  private readonly logger = new Logger('ChatRouting');

  constructor(private readonly intents: IntentService) {}

  async route(tenantId: TenantId, message: string, sessionId: string): Promise<ChatRouting> {
    const routed = await this.intents.routeWithRule(tenantId, message, { source: 'chat', sessionId });
    return {
      result: routed.result,
      rule: routed.rule ? { action: routed.rule.action, reply: routed.rule.reply, confidenceProfile: routed.rule.confidenceProfile } : null,
    };
  }

  async ruleFor(tenantId: TenantId, intent: string): Promise<{ ruleId: string; rule: ChatIntentRule } | null> {
    const rule = await this.intents.ruleForIntent(tenantId, intent);
    return rule ? { ruleId: rule.id, rule: { action: rule.action, reply: rule.reply, confidenceProfile: rule.confidenceProfile } } : null;
  }

  /** Best effort, from the intent module's cached rules: a clarification without labels still lists the intent names. */
  async labels(tenantId: TenantId, intents: readonly string[]): Promise<Map<string, string>> {
    try {
      return await this.intents.intentLabels(tenantId, intents);
    } catch (error) {
      this.logger.warn({ msg: 'intent label lookup failed', err: (error as Error).message });
      return new Map();
    }
  }
}
