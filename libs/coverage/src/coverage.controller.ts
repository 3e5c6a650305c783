import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBadRequestResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { TenantId } from '@arbiter/common';
import { Auth, CurrentTenant } from '@arbiter/tenancy';
import { CoverageBackfillJob } from './coverage-backfill.job.js';
import { CoverageService, type CoverageGaps, type CoverageReport } from './coverage.service.js';
import { CoverageGapsDto, CoverageReportDto } from './dto/coverage-response.dto.js';
import { CoverageGapsQueryDto, CoverageReportQueryDto, JobAcceptedDto, ReEvaluateDto } from './dto/coverage-query.dto.js';

@ApiTags('coverage')
@Controller('admin/coverage')
@Auth('operator')
export class CoverageController {
  constructor(
    private readonly coverage: CoverageService,
    private readonly backfill: CoverageBackfillJob,
  ) {}

  @Get('report')
  @ApiOkResponse({ type: CoverageReportDto, description: 'Coverage rate of the current (or given) evaluator version over a calendar-day window' })
  @ApiBadRequestResponse({ description: 'Bad date, from after to, window over 366 days, unknown time zone, groupBy or evaluator version' })
  report(@CurrentTenant() tenantId: TenantId, @Query() query: CoverageReportQueryDto): Promise<CoverageReport> {
    return this.coverage.report(tenantId, query);
  }

  @Get('gaps')
  @ApiOkResponse({ type: CoverageGapsDto, description: 'Uncovered queries grouped by normalized text, most frequent first' })
  @ApiBadRequestResponse({ description: 'Bad date, from after to, limit outside 1..500, unknown time zone or evaluator version' })
  gaps(@CurrentTenant() tenantId: TenantId, @Query() query: CoverageGapsQueryDto): Promise<CoverageGaps> {
    return this.coverage.gaps(tenantId, query);
  }

  @Post('re-evaluate')
  @HttpCode(202)
  @ApiAcceptedResponse({ type: JobAcceptedDto, description: 'Backfill queued; follow it at GET /admin/jobs/{jobId}' })
  @ApiBadRequestResponse({ description: 'Unknown evaluator version, bad date or from after to' })
  async reEvaluate(@CurrentTenant() tenantId: TenantId, @Body() body: ReEvaluateDto): Promise<JobAcceptedDto> {
    return { jobId: await this.backfill.enqueue(tenantId, body ?? {}) };
  }
}
