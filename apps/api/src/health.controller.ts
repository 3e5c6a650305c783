import { Controller, Get, HttpException, Logger } from '@nestjs/common';
import { ApiOkResponse, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { DATABASE_UNAVAILABLE_CODE } from '@arbiter/common';
import { DatabaseHealth } from '@arbiter/database';
import { Auth } from '@arbiter/tenancy';

type HealthyDatabase = { status: 'up'; latencyMs: number } | { status: 'busy'; waitingMs: number };

@ApiTags('operations')
@Controller('health')
@Auth('public')
export class HealthController {
  private readonly logger = new Logger('Health');

  constructor(private readonly database: DatabaseHealth) {}

  /**
   * Answers within ~50 ms: `busy` means the database is reachable but its probe is queued behind a
   * long statement (the embedded database runs one at a time); `down` (503) means a failing
   * connection or no answer for 30 s.
   */
  @Get()
  @ApiOkResponse({
    description: 'Process alive and database reachable (`up`, or `busy` while a long statement runs)',
    schema: { example: { status: 'ok', database: { status: 'up', latencyMs: 1.2 } } },
  })
  @ApiServiceUnavailableResponse({ description: 'Database unreachable, or no answer for 30 s' })
  async check(): Promise<{ status: 'ok'; database: HealthyDatabase }> {
    const database = await this.database.check();
    if (database.status === 'down') {
      // The driver's text (hosts, ports, user names) goes to the log, under the request id, never to the client.
      this.logger.error({ msg: 'health check: database down', reason: database.reason });
      throw new HttpException({ message: 'Database unavailable', code: DATABASE_UNAVAILABLE_CODE, details: { database: { status: 'down' } } }, 503);
    }
    return { status: 'ok', database };
  }
}
