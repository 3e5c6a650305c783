import { Controller, Get, HttpException, Logger } from '@nestjs/common';
import { ApiOkResponse, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { DATABASE_UNAVAILABLE_CODE } from '@arbiter/common';
import { DatabaseHealth } from '@arbiter/database';
import { Auth } from '@arbiter/tenancy';
import { StorageHealth, type StorageStatus } from './storage-health.js';

type HealthyDatabase = { status: 'up'; latencyMs: number } | { status: 'busy'; waitingMs: number; queued?: number };

@ApiTags('operations')
@Controller('health')
@Auth('public')
export class HealthController {
  private readonly logger = new Logger('Health');

  constructor(
    private readonly database: DatabaseHealth,
    private readonly storage: StorageHealth,
  ) {}

  /**
   * Answers within ~50 ms: `busy` (top level and `database`, still 200) means the database is reachable but
   * requests queue: its probe is queued behind a long statement (the embedded database runs one at a time),
   * requests wait for a pool connection, or a request statement has been in flight for 100 ms
   * (docs/hot-paths.md "Imports: foreground first"); `down` (503) means a failing
   * connection or no answer for 30 s. `degraded` (still 200: reads work) means storage is full: a write
   * was refused for lack of space in the last minute, or the embedded data directory has < 64 MiB free.
   */
  @Get()
  @ApiOkResponse({
    description: 'Process alive and database reachable (`up`, or `busy` while a long statement runs)',
    schema: { example: { status: 'ok', database: { status: 'up', latencyMs: 1.2 }, storage: { status: 'ok' } } },
  })
  @ApiServiceUnavailableResponse({ description: 'Database unreachable, or no answer for 30 s' })
  async check(): Promise<{ status: 'ok' | 'busy' | 'degraded'; database: HealthyDatabase; storage: StorageStatus }> {
    const [database, storage] = await Promise.all([this.database.check(), this.storage.check()]);
    if (database.status === 'down') {
      // The driver's text (hosts, ports, user names) goes to the log, under the request id, never to the client.
      this.logger.error({ msg: 'health check: database down', reason: database.reason });
      throw new HttpException({ message: 'Database unavailable', code: DATABASE_UNAVAILABLE_CODE, details: { database: { status: 'down' } } }, 503);
    }
    // Full storage is the graver news: `degraded` wins over `busy`.
    return { status: storage.status !== 'ok' ? 'degraded' : database.status === 'busy' ? 'busy' : 'ok', database, storage };
  }
}
