import { Injectable, type OnModuleInit } from '@nestjs/common';
import { TenantSeeds } from '@arbiter/tenancy';
import { IntentRouterCache } from './intent-router.cache.js';
import { IntentRulesService } from './intent-rules.service.js';
import { DEMO_INTENT_RULES } from './intent.seeds.js';

/** The longest the first start waits for the demo's classifier (it trains in ~1–3 s on 2 cores). */
const DEMO_TRAINING_WAIT_MS = 30_000;

/**
 * The demo intent set, seeded into a tenant on the first embedded start (`TenantSeeds`). The boot then waits
 * for the demo router's classifier, so the README's first chats answer as it says from the start-up banner
 * on (before, an intent question asked in the first seconds found no trained classifier yet).
 */
@Injectable()
export class IntentDemoSeeds implements OnModuleInit {
  constructor(
    private readonly rules: IntentRulesService,
    private readonly seeds: TenantSeeds,
    private readonly cache: IntentRouterCache,
  ) {}

  onModuleInit(): void {
    this.seeds.register('intent', async (tenantId) => {
      for (const rule of DEMO_INTENT_RULES) await this.rules.create(tenantId, rule);
      const routing = await this.cache.get(tenantId);
      let timer: NodeJS.Timeout | undefined;
      // A training that fails or outlasts the wait leaves the demo routing as any new rule set does meanwhile.
      await Promise.race([routing.trained, new Promise((resolve) => (timer = setTimeout(resolve, DEMO_TRAINING_WAIT_MS)))]);
      clearTimeout(timer);
    });
  }
}
