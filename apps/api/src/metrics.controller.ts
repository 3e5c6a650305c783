import { Controller, Get, Header, Headers, NotFoundException, UnauthorizedException } from '@nestjs/common';
import { ApiOkResponse, ApiProduces, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { MetricsService } from '@arbiter/common';
import { AppConfig } from '@arbiter/config';
import { Auth } from '@arbiter/tenancy';
import { metricsAuthorized } from './metrics-listener.js';

@ApiTags('operations')
@Controller('metrics')
@Auth('public')
export class MetricsController {
  constructor(
    private readonly metrics: MetricsService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'Prometheus text exposition format' })
  @ApiUnauthorizedResponse({ description: 'METRICS_TOKEN is set and the bearer token is missing or wrong' })
  @Header('cache-control', 'no-store')
  async scrape(@Headers('authorization') authorization?: string): Promise<string> {
    // With METRICS_PORT, /metrics lives on its own listener only (metrics-listener.ts).
    if (this.config.metrics.port !== undefined) throw new NotFoundException('Cannot GET /metrics');
    if (!metricsAuthorized(this.config.metrics.token, authorization)) throw new UnauthorizedException('Send Authorization: Bearer <METRICS_TOKEN>');
    return this.metrics.registry.metrics();
  }
}
