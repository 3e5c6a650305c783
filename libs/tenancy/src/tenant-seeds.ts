import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { AppConfig } from '@arbiter/config';
import type { TenantId } from '@arbiter/common';
import { DatabaseConnectionInfo } from '@arbiter/database';
import { TenancyService, type CreatedTenant } from './tenancy.service.js';

/** Modules add their demo data (intent rules, knowledge) for a freshly seeded tenant. */
export type TenantSeedContributor = (tenantId: TenantId) => Promise<void>;

export const DEMO_TENANT_NAME = 'demo';
export const DEMO_CREDENTIALS_FILE = 'demo-credentials.json';

/**
 * First start on the embedded database with no tenant: create `demo`, let every module seed it,
 * and keep its keys for the start-up banner (and in DATA_DIR/demo-credentials.json, mode 0600).
 */
@Injectable()
export class TenantSeeds implements OnApplicationBootstrap {
  private readonly logger = new Logger('TenantSeeds');
  private readonly contributors: { name: string; seed: TenantSeedContributor }[] = [];
  seededDemo: CreatedTenant | null = null;

  constructor(
    private readonly tenancy: TenancyService,
    private readonly config: AppConfig,
    private readonly connection: DatabaseConnectionInfo,
  ) {}

  register(name: string, seed: TenantSeedContributor): void {
    this.contributors.push({ name, seed });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.auth.seedDemo || !this.connection.embeddedMode) return;
    if ((await this.tenancy.countTenants()) > 0) return;
    const demo = await this.tenancy.createTenant(DEMO_TENANT_NAME);
    for (const contributor of this.contributors) {
      await contributor.seed(demo.id);
      this.logger.log({ msg: 'demo data seeded', module: contributor.name });
    }
    this.seededDemo = demo;
    const dir = this.config.database.dataDir;
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, DEMO_CREDENTIALS_FILE), JSON.stringify({ tenantId: demo.id, apiKeys: demo.apiKeys }, null, 2) + '\n', { mode: 0o600 });
  }
}
