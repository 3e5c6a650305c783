import { DynamicModule, Global, Logger, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '@arbiter/config';
import type { EmbeddedPostgres } from './embedded-postgres.js';
import { EMBEDDED_POSTGRES } from './database.tokens.js';
import { EmbeddedDatabaseModule } from './embedded-database.module.js';
import { DatabaseConnectionInfo } from './database-connection.js';
import { DatabaseHealth } from './database-health.service.js';
import { DatabaseLifecycle } from './database-lifecycle.service.js';
import { runMigrations } from './migrator.js';
import { boundedPoolOptions } from './pool-options.js';

/**
 * PostgreSQL via DATABASE_URL, or embedded PGlite when unset. Migrations (SQL files) run before
 * TypeORM connects; TypeORM never changes the schema (synchronize off, validate-only at boot).
 */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        EmbeddedDatabaseModule,
        TypeOrmModule.forRootAsync({
          imports: [EmbeddedDatabaseModule],
          inject: [AppConfig, EMBEDDED_POSTGRES],
          useFactory: async (config: AppConfig, embedded: EmbeddedPostgres | null) => {
            const url = embedded?.url ?? config.database.url;
            if (!url) throw new Error('DATABASE_URL is unset and no embedded database is running');
            const report = await runMigrations(url, config.database.migrationsDir, { connectTimeoutMs: config.database.connectTimeoutMs });
            new Logger('Database').log({ msg: 'migrations', applied: report.applied, alreadyApplied: report.alreadyApplied });
            return {
              type: 'postgres' as const,
              url,
              autoLoadEntities: true,
              synchronize: false,
              migrationsRun: false,
              installExtensions: false,
              uuidExtension: 'pgcrypto' as const,
              retryAttempts: 0,
              logging: false,
              extra: boundedPoolOptions(config.database.poolMax, config.database, embedded !== null),
            };
          },
        }),
      ],
      providers: [DatabaseConnectionInfo, DatabaseHealth, DatabaseLifecycle],
      exports: [DatabaseConnectionInfo, DatabaseHealth, EmbeddedDatabaseModule],
    };
  }
}
