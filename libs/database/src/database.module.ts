import { DynamicModule, Logger, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '@arbiter/config';
import type { EmbeddedPostgres } from './embedded-postgres.js';
import { DATABASE_HEALTH_OPTIONS, EMBEDDED_POSTGRES } from './database.tokens.js';
import { EmbeddedDatabaseModule } from './embedded-database.module.js';
import { BackgroundGate } from './background-gate.js';
import { DatabaseConnectionInfo } from './database-connection.js';
import { DatabaseHealth, DEFAULT_HEALTH_OPTIONS } from './database-health.service.js';
import { DatabaseLifecycle } from './database-lifecycle.service.js';
import { runMigrations } from './migrator.js';
import { Database } from './sql/database.js';
import { boundedPoolOptions } from './pool-options.js';

/**
 * `Database` (the typed data layer), `DatabaseHealth`, `DatabaseConnectionInfo` and `BackgroundGate`: import
 * `DatabaseModule` where you inject them.
 * The connection itself is `DatabaseModule.forRoot()`, imported once by the app module: PostgreSQL
 * via DATABASE_URL, or embedded PGlite when unset. Migrations (SQL files) run before TypeORM
 * connects; TypeORM never changes the schema (synchronize off, validate-only at boot). The
 * `DataSource` and `TypeOrmModule.forFeature` repositories are provided app-wide by @nestjs/typeorm.
 */
@Module({
  imports: [EmbeddedDatabaseModule],
  providers: [
    DatabaseConnectionInfo,
    DatabaseHealth,
    BackgroundGate,
    Database,
    // The embedded database runs one transaction at a time: replacing a maximal document (2 MiB, ~3,800
    // chunks, one transaction) holds it for a minute or more on 2 cores. That is `busy`, not `down`.
    {
      provide: DATABASE_HEALTH_OPTIONS,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({ ...DEFAULT_HEALTH_OPTIONS, busyLimitMs: config.database.healthBusyLimitMs }),
    },
  ],
  exports: [DatabaseConnectionInfo, DatabaseHealth, BackgroundGate, Database],
})
export class DatabaseModule {
  static forRoot(): DynamicModule {
    return {
      module: DatabaseRootModule,
      imports: [
        DatabaseModule,
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
      providers: [DatabaseLifecycle],
      exports: [DatabaseModule, EmbeddedDatabaseModule],
    };
  }
}

/** The root connection (see `DatabaseModule.forRoot`). */
@Module({})
class DatabaseRootModule {}
