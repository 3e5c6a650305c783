import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import { DEMO_KNOWLEDGE, KnowledgeService } from '@arbiter/retrieval';
import { TenantSeeds } from '@arbiter/tenancy';

/** Upserts the demo knowledge documents for a tenant (idempotent: unchanged documents are skipped). */
export async function seedDemoKnowledge(knowledge: KnowledgeService, tenantId: TenantId): Promise<number> {
  let n = 0;
  for (const doc of DEMO_KNOWLEDGE) {
    await knowledge.upsert(tenantId, { ...doc, keywords: [...doc.keywords], metadata: { source: 'demo' } });
    n++;
  }
  return n;
}

/** Seeds the demo tenant's knowledge base on the first embedded start (`TenantSeeds`). */
@Injectable()
export class ChatDemoSeeds implements OnModuleInit {
  constructor(
    private readonly seeds: TenantSeeds,
    private readonly knowledge: KnowledgeService,
  ) {}

  onModuleInit(): void {
    this.seeds.register('chat-demo-knowledge', async (tenantId) => {
      await seedDemoKnowledge(this.knowledge, tenantId);
    });
  }
}
