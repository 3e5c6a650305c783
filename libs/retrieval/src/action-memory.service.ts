import { Injectable } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import type { ActionMemory, DomainRetrievalScope } from './action-memory.js';
import { ActionMemoryRepository } from './action-memory.repository.js';
import type { RelevanceLevel } from './relevance.js';
import { RetrievalSettingsService } from './retrieval-settings.service.js';

/** The seed's tracker on PostgreSQL, bound to one tenant (same contract as InMemoryActionMemory). */
export class PersistedActionMemory implements ActionMemory {
  constructor(
    private readonly repository: ActionMemoryRepository,
    private readonly tenantId: TenantId,
    private readonly ttlSeconds: number,
  ) {}

  async markRetrieved(sessionId: string, domain: string, filePath: string, level: RelevanceLevel = 'REFERENCE'): Promise<void> {
    await this.repository.withSessionLock(this.tenantId, sessionId, (tx) => this.repository.mark(tx, this.tenantId, sessionId, [{ domain, filePath, level }], this.ttlSeconds));
  }

  async isDocRetrieved(sessionId: string, filePath: string): Promise<boolean> {
    return (await this.repository.load(this.tenantId, sessionId)).docs.has(filePath);
  }

  async isDomainRetrieved(sessionId: string, domain: string, scope: DomainRetrievalScope = 'any'): Promise<boolean> {
    const entry = (await this.repository.load(this.tenantId, sessionId)).domains.get(domain);
    return entry !== undefined && (scope === 'any' || entry.strong);
  }

  async getRetrievedDomains(sessionId: string): Promise<string[]> {
    return [...(await this.repository.load(this.tenantId, sessionId)).domains.keys()];
  }

  async clearSession(sessionId: string): Promise<void> {
    await this.repository.clearSession(this.tenantId, sessionId);
  }
}

@Injectable()
export class ActionMemoryService {
  constructor(
    private readonly repository: ActionMemoryRepository,
    private readonly settings: RetrievalSettingsService,
  ) {}

  async forTenant(tenantId: TenantId): Promise<PersistedActionMemory> {
    const { memoryTtlSeconds } = await this.settings.get(tenantId);
    return new PersistedActionMemory(this.repository, tenantId, memoryTtlSeconds);
  }

  /** Deletes expired memory rows of a tenant in batches; returns how many. */
  async purgeExpired(tenantId: TenantId, onBatch?: (deleted: number) => Promise<void>): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.repository.purgeExpired(tenantId, 5000);
      total += n;
      if (onBatch && n) await onBatch(n);
      if (n < 5000) return total;
    }
  }
}
