import { Controller, Get, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { TenantId } from '@arbiter/common';
import { Auth, CurrentTenant } from '@arbiter/tenancy';
import { ConsoleOverviewDto } from './dto/console-overview.dto.js';
import { ConsoleOverviewQueryDto } from './dto/console-query.dto.js';
import { ConsoleService } from './console.service.js';

/** Read models of the operator console: one call per page (docs/console.md). */
@ApiTags('console')
@Controller('admin/console')
@Auth('operator')
export class ConsoleController {
  constructor(private readonly console: ConsoleService) {}

  @Get('overview')
  @ApiOkResponse({
    type: ConsoleOverviewDto,
    description:
      "The Overview page: coverage per day, totals, decision reasons, confidence histogram, calibration, top gaps and job runs of a day window (tenant's time zone)",
  })
  @ApiBadRequestResponse({ description: 'from/to not a calendar day, from after to, window over 366 days, malformed channel (the body names the parameter)' })
  overview(@CurrentTenant() tenantId: TenantId, @Query() query: ConsoleOverviewQueryDto): Promise<ConsoleOverviewDto> {
    return this.console.overview(tenantId, query);
  }
}
