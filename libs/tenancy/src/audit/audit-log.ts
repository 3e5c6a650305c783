import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { RequestContextStore, type TenantId } from '@arbiter/common';
import { AppConfig } from '@arbiter/config';
import type { Db, Tx } from '@arbiter/database';
import { AuditRepository } from './audit.repository.js';
import { sanitizeSummary, type AuditChange } from './audit.types.js';

const PURGE_EVERY_MS = 60 * 60_000;

/**
 * Records writes in the audit log (docs/http-edge.md "Audit log"): who (from the request: the key's id
 * and name, or the platform admin), what, when and the request id, on the transaction of the change, so
 * the entry commits and rolls back with it. Entries past their tenant's retention are deleted hourly.
 */
@Injectable()
export class AuditLog implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('AuditLog');
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly repository: AuditRepository,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.purge(), PURGE_EVERY_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /**
   * Writes the entry for `change` of `tenantId` on `executor`, the change's own transaction (docs/data-layer.md).
   */
  async record(executor: Db | Tx, tenantId: TenantId | string, change: AuditChange): Promise<void> {
    const actor = RequestContextStore.actor();
    await this.repository.insert(executor, {
      tenantId,
      actorKind: actor?.kind ?? 'system',
      actorKeyId: actor?.keyId ?? null,
      actorName: actor?.name?.slice(0, 100) ?? null,
      action: change.action,
      resourceType: change.resourceType,
      resourceId: change.resourceId?.slice(0, 200) ?? null,
      label: change.label?.slice(0, 300) ?? null,
      requestId: RequestContextStore.requestId() ?? null,
      summary: sanitizeSummary(change.summary ?? {}),
    });
  }

  async purge(): Promise<number> {
    try {
      return await this.repository.purge(this.config.audit.retentionDays);
    } catch (error) {
      this.logger.warn({ msg: 'audit purge failed', error: String(error) });
      return 0;
    }
  }
}
