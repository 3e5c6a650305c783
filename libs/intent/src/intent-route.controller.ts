import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { TenantId } from '@arbiter/common';
import { Auth, CurrentTenant } from '@arbiter/tenancy';
import { RouteResultDto } from './dto/intent-response.dto.js';
import { RouteIntentDto } from './dto/intent-rule.dto.js';
import { IntentService } from './intent.service.js';
import type { RouteResult } from './routing/index.js';

@ApiTags('intent')
@Controller('ai/intent')
export class IntentRouteController {
  constructor(private readonly intents: IntentService) {}

  @Post('route')
  @Auth('client', { viewer: true })
  @HttpCode(200)
  @ApiOperation({ summary: 'Hybrid intent routing (rules + semantic + LLM judge when triggered) → RouteResult with the full routeTrace' })
  @ApiOkResponse({ type: RouteResultDto, description: 'RouteResult (docs/spec/intent-routing.md)' })
  route(@CurrentTenant() tenantId: TenantId, @Body() dto: RouteIntentDto): Promise<RouteResult> {
    return this.intents.route(tenantId, dto.message);
  }
}
