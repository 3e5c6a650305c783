import { Controller, Get, HttpCode, Param, ParseUUIDPipe, Post, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { TenantId } from '@arbiter/common';
import { Auth, CurrentTenant } from '@arbiter/tenancy';
import { ListConversationsQueryDto, StatsQueryDto } from './dto/monitoring-query.dto.js';
import { ConversationDetailDto, ConversationPageDto, StatsDto, StatsRebuildDto } from './dto/monitoring-response.dto.js';
import { MonitoringService } from './monitoring.service.js';

@ApiTags('monitoring')
@Controller('admin/monitoring')
@Auth('operator')
export class MonitoringController {
  constructor(private readonly monitoring: MonitoringService) {}

  @Get('conversations')
  @ApiOkResponse({ type: ConversationPageDto, description: 'Conversations of this tenant, latest activity first (keyset cursor)' })
  @ApiBadRequestResponse({ description: 'Bad date, from after to, limit outside 1..200, unknown status, malformed cursor' })
  list(@CurrentTenant() tenantId: TenantId, @Query() query: ListConversationsQueryDto): Promise<ConversationPageDto> {
    return this.monitoring.listConversations(tenantId, query);
  }

  @Get('conversations/:id')
  @ApiOkResponse({ type: ConversationDetailDto, description: 'Every session with route trace, tool invocations, self-evaluation, coverage, feedback, latency' })
  @ApiNotFoundResponse({ description: 'No such conversation in this tenant' })
  @ApiBadRequestResponse({ description: 'id is not a UUID' })
  detail(@CurrentTenant() tenantId: TenantId, @Param('id', new ParseUUIDPipe()) id: string): Promise<ConversationDetailDto> {
    return this.monitoring.conversation(tenantId, id);
  }

  @Get('stats')
  @ApiOkResponse({ type: StatsDto, description: 'Aggregates over sessions created in the window (default: last 30 days, tenant time zone)' })
  @ApiBadRequestResponse({ description: 'Bad date, from after to, window over 366 days, unknown groupBy' })
  stats(@CurrentTenant() tenantId: TenantId, @Query() query: StatsQueryDto): Promise<StatsDto> {
    return this.monitoring.stats(tenantId, query);
  }

  @Post('stats/rebuild')
  @HttpCode(200)
  @ApiOkResponse({
    type: StatsRebuildDto,
    description: "Rebuilds this tenant's stats rollup from its sessions and coverage decisions (the backfill; the stats stay exact meanwhile)",
  })
  rebuildStats(@CurrentTenant() tenantId: TenantId): Promise<StatsRebuildDto> {
    return this.monitoring.rebuildStats(tenantId);
  }
}
