import { Injectable, type OnModuleInit } from '@nestjs/common';
import { TenantSeeds } from '@arbiter/tenancy';
import { IntentRulesService } from './intent-rules.service.js';
import { DEMO_INTENT_RULES } from './intent.seeds.js';

/** The demo intent set, seeded into a tenant on the first embedded start (`TenantSeeds`). */
@Injectable()
export class IntentDemoSeeds implements OnModuleInit {
  constructor(
    private readonly rules: IntentRulesService,
    private readonly seeds: TenantSeeds,
  ) {}

  onModuleInit(): void {
    this.seeds.register('intent', async (tenantId) => {
      for (const rule of DEMO_INTENT_RULES) await this.rules.create(tenantId, rule);
    });
  }
}
