import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { EmbeddedPostgres } from './embedded-postgres.js';
import { EMBEDDED_POSTGRES } from './database.tokens.js';
import { detectSchemaDrift, SchemaDriftError } from './schema-check.js';

/**
 * Boot: refuses to start when entities and the migrated schema differ (validate-only).
 * Shutdown: closes the pool before the embedded server so no query is cut mid-flight.
 */
@Injectable()
export class DatabaseLifecycle implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('Database');

  constructor(
    private readonly dataSource: DataSource,
    @Inject(EMBEDDED_POSTGRES) private readonly embedded: EmbeddedPostgres | null,
  ) {}

  async onModuleInit(): Promise<void> {
    const drift = await detectSchemaDrift(this.dataSource);
    if (drift.length) {
      const error = new SchemaDriftError(drift);
      this.logger.error({ msg: 'schema drift: refusing to start', statements: drift });
      throw error;
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
    if (this.embedded) await this.embedded.close();
  }
}
