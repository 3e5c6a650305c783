import { Body, Controller, Get, HttpCode, Param, ParseUUIDPipe, Patch, Post, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiCreatedResponse, ApiNotFoundResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { TenantId } from '@arbiter/common';
import { Auth, CurrentTenant } from '@arbiter/tenancy';
import {
  BadCasePageDto,
  CaseDto,
  CasePageDto,
  CreateCaseDto,
  FeedbackResultDto,
  ListBadCasesQueryDto,
  ListCasesQueryDto,
  SubmitFeedbackDto,
  UpdateCaseDto,
} from './dto/feedback.dto.js';
import { FeedbackService } from './feedback.service.js';

@ApiTags('feedback')
@Controller('api/feedback')
@Auth('client')
export class FeedbackController {
  constructor(private readonly feedback: FeedbackService) {}

  @Post()
  @HttpCode(200)
  @ApiOkResponse({ type: FeedbackResultDto, description: 'not_useful → BAD_CASE; useful → one AUTO case; repeats are idempotent' })
  @ApiBadRequestResponse({ description: 'Invalid feedback value, id or comment (over 1,000 characters)' })
  @ApiNotFoundResponse({ description: 'No such session in this tenant' })
  @ApiConflictResponse({ description: 'Session still PENDING/RUNNING, or useful on a session with no answer (FAILED)' })
  submit(@CurrentTenant() tenantId: TenantId, @Body() body: SubmitFeedbackDto): Promise<FeedbackResultDto> {
    return this.feedback.submit(tenantId, body);
  }
}

@ApiTags('feedback')
@Controller('admin')
@Auth('operator')
export class ReviewController {
  constructor(private readonly feedback: FeedbackService) {}

  @Get('bad-cases')
  @ApiOkResponse({ type: BadCasePageDto, description: 'Sessions marked not useful, newest first (cursor pagination)' })
  listBadCases(@CurrentTenant() tenantId: TenantId, @Query() query: ListBadCasesQueryDto): Promise<BadCasePageDto> {
    return this.feedback.listBadCases(tenantId, query);
  }

  @Get('case-library')
  @ApiOkResponse({ type: CasePageDto, description: 'Active cases, newest first (cursor pagination), filterable by faultCategory/sourceType' })
  listCases(@CurrentTenant() tenantId: TenantId, @Query() query: ListCasesQueryDto): Promise<CasePageDto> {
    return this.feedback.listCases(tenantId, { faultCategory: query.faultCategory, sourceType: query.sourceType }, query);
  }

  @Post('case-library')
  @HttpCode(201)
  @ApiCreatedResponse({ type: CaseDto, description: 'A MANUAL case' })
  createCase(@CurrentTenant() tenantId: TenantId, @Body() body: CreateCaseDto): Promise<CaseDto> {
    return this.feedback.createManualCase(tenantId, body);
  }

  @Get('case-library/:id')
  @ApiOkResponse({ type: CaseDto })
  @ApiNotFoundResponse({ description: 'No such active case in this tenant' })
  getCase(@CurrentTenant() tenantId: TenantId, @Param('id', new ParseUUIDPipe()) id: string): Promise<CaseDto> {
    return this.feedback.getCase(tenantId, id);
  }

  @Patch('case-library/:id')
  @ApiOkResponse({ type: CaseDto, description: 'Edits faultCategory and/or errorCode (null clears errorCode)' })
  @ApiNotFoundResponse({ description: 'No such active case in this tenant' })
  updateCase(@CurrentTenant() tenantId: TenantId, @Param('id', new ParseUUIDPipe()) id: string, @Body() body: UpdateCaseDto): Promise<CaseDto> {
    return this.feedback.updateCase(tenantId, id, body);
  }
}
