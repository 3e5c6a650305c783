import { Controller, Get, Param, ParseUUIDPipe, Query } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { TenantId } from '@arbiter/common';
import { Auth, CurrentTenant } from '@arbiter/tenancy';
import { JobRunDto, JobRunPageDto, ListJobRunsQueryDto, toJobRunDto } from './dto/job-run.dto.js';
import { JobsService } from './jobs.service.js';

@ApiTags('jobs')
@Controller('admin/jobs')
@Auth('operator')
export class JobsController {
  constructor(private readonly jobs: JobsService) {}

  @Get()
  @ApiOkResponse({ type: JobRunPageDto, description: 'Job runs of this tenant, newest first' })
  async list(@CurrentTenant() tenantId: TenantId, @Query() query: ListJobRunsQueryDto): Promise<JobRunPageDto> {
    const page = await this.jobs.list(tenantId, { name: query.name, status: query.status }, query);
    return { items: page.items.map(toJobRunDto), nextCursor: page.nextCursor };
  }

  @Get(':id')
  @ApiOkResponse({ type: JobRunDto })
  @ApiNotFoundResponse({ description: 'No such run in this tenant' })
  async get(@CurrentTenant() tenantId: TenantId, @Param('id', new ParseUUIDPipe()) id: string): Promise<JobRunDto> {
    return toJobRunDto(await this.jobs.get(tenantId, id));
  }
}
