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
        const logger = new Logger('Database');
        // Pool connections plus headroom for the migrator and LISTEN/NOTIFY clients.
        const embedded = await startEmbeddedPostgres(db.dataDir, db.poolMax + 8, {
          onUnexpectedExit: (error) => logger.error({ msg: 'embedded PostgreSQL thread died: every query will fail until restart', error: error.message }),
        });
        logger.log({
          msg: 'embedded PostgreSQL (PGlite + pgvector) started in its own thread',
          dataDir: db.dataDir,
          socket: embedded.socketPath,
          ms: Date.now() - started,
        });
        return embedded;
      },
    },
  ],
  exports: [EMBEDDED_POSTGRES],
})
export class EmbeddedDatabaseModule {}
