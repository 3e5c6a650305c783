import { Logger, Module } from '@nestjs/common';
import { AppConfig } from '@arbiter/config';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded-postgres.js';
import { EMBEDDED_POSTGRES } from './database.tokens.js';

@Module({
  providers: [
    {
      provide: EMBEDDED_POSTGRES,
      inject: [AppConfig],
      useFactory: async (config: AppConfig): Promise<EmbeddedPostgres | null> => {
        const db = config.database;
        if (!db.embedded) return null;
        const started = Date.now();
        // Pool connections plus headroom for the migrator, pg-boss and LISTEN/NOTIFY clients.
        const embedded = await startEmbeddedPostgres(db.dataDir, db.poolMax + 8);
        new Logger('Database').log({ msg: 'embedded PostgreSQL (PGlite + pgvector) started', dataDir: db.dataDir, ms: Date.now() - started });
        return embedded;
      },
    },
  ],
  exports: [EMBEDDED_POSTGRES],
})
export class EmbeddedDatabaseModule {}
