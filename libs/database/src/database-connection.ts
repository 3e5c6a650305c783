import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '@arbiter/config';
import type { EmbeddedPostgres } from './embedded-postgres.js';
import { EMBEDDED_POSTGRES } from './database.tokens.js';

/** Where the database is: the embedded server's Unix-socket URL or DATABASE_URL. */
@Injectable()
export class DatabaseConnectionInfo {
  constructor(
    private readonly config: AppConfig,
    @Inject(EMBEDDED_POSTGRES) private readonly embedded: EmbeddedPostgres | null,
  ) {}

  get url(): string {
    const url = this.embedded?.url ?? this.config.database.url;
    if (!url) throw new Error('No database: DATABASE_URL is unset and the embedded database did not start');
    return url;
  }

  get embeddedMode(): boolean {
    return this.embedded !== null;
  }
}
