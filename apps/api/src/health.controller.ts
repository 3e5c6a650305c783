import { Controller, Get, HttpException } from '@nestjs/common';
import { ApiOkResponse, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { DatabaseHealth } from '@arbiter/database';
import { Auth } from '@arbiter/tenancy';

@ApiTags('operations')
@Controller('health')
@Auth('public')
export class HealthController {
  constructor(private readonly database: DatabaseHealth) {}

  @Get()
  @ApiOkResponse({ description: 'Process alive and database reachable', schema: { example: { status: 'ok', database: { status: 'up', latencyMs: 1.2 } } } })
  @ApiServiceUnavailableResponse({ description: 'Database unreachable' })
  async check(): Promise<{ status: 'ok'; database: { status: 'up'; latencyMs: number } }> {
    try {
      const latencyMs = await this.database.ping();
      return { status: 'ok', database: { status: 'up', latencyMs: Math.round(latencyMs * 100) / 100 } };
    } catch (error) {
      throw new HttpException({ message: `Database unavailable: ${(error as Error).message}`, details: { database: { status: 'down' } } }, 503);
    }
  }
}
