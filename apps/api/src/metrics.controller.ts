import { Controller, Get, Header, Headers, UnauthorizedException } from '@nestjs/common';
import { ApiOkResponse, ApiProduces, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { MetricsService } from '@arbiter/common';
import { AppConfig } from '@arbiter/config';
import { Auth, secretsEqual } from '@arbiter/tenancy';

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
    const token = this.config.metrics.token;
    if (token) {
      const given = authorization?.startsWith('Bearer ') ? authorization.slice(7).trim() : '';
      if (!secretsEqual(given, token)) throw new UnauthorizedException('Send Authorization: Bearer <METRICS_TOKEN>');
    }
    return this.metrics.registry.metrics();
  }
}
