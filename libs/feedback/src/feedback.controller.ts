import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Patch, Post, Put, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { TenantId } from '@arbiter/common';
import { Auth, CurrentTenant } from '@arbiter/tenancy';
import {
  AcceptExampleDto,
  AcceptExampleResultDto,
  BadCaseDto,
  BadCasePageDto,
  BadCaseReportDto,
  BadCaseReportQueryDto,
  CaseLibrarySettingsDto,
  CaseDto,
  CasePageDto,
  CreateCaseDto,
  FeedbackResultDto,
  ListBadCasesQueryDto,
  ListCasesQueryDto,
  PutBadCaseReviewDto,
  PutCaseLibrarySettingsDto,
  SubmitFeedbackDto,
  UpdateCaseDto,
} from './dto/feedback.dto.js';
import { CaseLearningService } from './case-learning.service.js';
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
  constructor(
    private readonly feedback: FeedbackService,
    private readonly learning: CaseLearningService,
  ) {}

  @Get('bad-cases')
  @ApiOkResponse({ type: BadCasePageDto, description: 'Sessions marked not useful, newest first (cursor pagination), filterable by review status' })
  @ApiBadRequestResponse({ description: 'status not OPEN or RESOLVED, or an invalid cursor/limit' })
  listBadCases(@CurrentTenant() tenantId: TenantId, @Query() query: ListBadCasesQueryDto): Promise<BadCasePageDto> {
    return this.feedback.listBadCases(tenantId, query);
  }

  @Get('bad-cases/report')
  @ApiOkResponse({ type: BadCaseReportDto, description: 'Bad cases marked in the window, counted per failure layer and attribution rule' })
  @ApiBadRequestResponse({ description: 'from/to not an ISO-8601 instant with a zone, or from not before to' })
  badCaseReport(@CurrentTenant() tenantId: TenantId, @Query() query: BadCaseReportQueryDto): Promise<BadCaseReportDto> {
    return this.feedback.badCaseReport(tenantId, query);
  }

  @Post('bad-cases/:sessionId/accept-example')
  @HttpCode(200)
  @ApiOperation({
    summary:
      "Label a bad case with its correct intent and append its question to the semantic examples of that intent's enabled rule (highest priority); the router retrains off the request thread",
  })
  @ApiOkResponse({ type: AcceptExampleResultDto })
  @ApiBadRequestResponse({ description: 'Invalid intent, the intent has no enabled rule, or the question cannot be an example (too long, rule full)' })
  @ApiNotFoundResponse({ description: 'No session of this tenant marked not_useful with this id' })
  @ApiConflictResponse({ description: "The question is already a semantic example of the intent's rule" })
  acceptExample(
    @CurrentTenant() tenantId: TenantId,
    @Param('sessionId', new ParseUUIDPipe()) sessionId: string,
    @Body() body: AcceptExampleDto,
  ): Promise<AcceptExampleResultDto> {
    return this.learning.acceptExample(tenantId, sessionId, body.intent);
  }

  @Put('bad-cases/:sessionId/review')
  @ApiOperation({
    summary:
      'Review a bad case: set its correct intent and/or knowledge document, a note, and resolve or reopen it. Partial: an absent field is kept, null clears it',
  })
  @ApiOkResponse({ type: BadCaseDto, description: 'The bad case with its review' })
  @ApiBadRequestResponse({
    description:
      'Empty body, an intent no rule of the tenant names, a documentId that is not a knowledge document of the tenant, a note over 1,000 characters, or an invalid status',
  })
  @ApiNotFoundResponse({ description: 'No session of this tenant marked not_useful with this id' })
  review(
    @CurrentTenant() tenantId: TenantId,
    @Param('sessionId', new ParseUUIDPipe()) sessionId: string,
    @Body() body: PutBadCaseReviewDto,
  ): Promise<BadCaseDto> {
    return this.feedback.review(tenantId, sessionId, body);
  }

  @Get('case-library/settings')
  @ApiOperation({ summary: 'The case-library answer threshold of the tenant (default 0.85) and the version of its answerable cases' })
  @ApiOkResponse({ type: CaseLibrarySettingsDto })
  settings(@CurrentTenant() tenantId: TenantId): Promise<CaseLibrarySettingsDto> {
    return this.learning.settings(tenantId);
  }

  @Put('case-library/settings')
  @ApiOperation({ summary: 'Set the case-library answer threshold, in (0, 1] (null = the default); applies to the next chat message' })
  @ApiOkResponse({ type: CaseLibrarySettingsDto })
  @ApiBadRequestResponse({ description: 'threshold missing, not a number, or outside (0, 1]' })
  setSettings(@CurrentTenant() tenantId: TenantId, @Body() body: PutCaseLibrarySettingsDto): Promise<CaseLibrarySettingsDto> {
    return this.learning.setThreshold(tenantId, body.threshold);
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
  @ApiOkResponse({
    type: CaseDto,
    description:
      'Edits query, answer, faultCategory and/or errorCode (null clears errorCode); a new query or answer is what the chat answers with from the next message',
  })
  @ApiNotFoundResponse({ description: 'No such active case in this tenant' })
  updateCase(@CurrentTenant() tenantId: TenantId, @Param('id', new ParseUUIDPipe()) id: string, @Body() body: UpdateCaseDto): Promise<CaseDto> {
    return this.feedback.updateCase(tenantId, id, body);
  }

  @Delete('case-library/:id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Retract a case (AUTO or MANUAL): no longer listed, and no longer answers chat messages from the next one' })
  @ApiNoContentResponse({ description: 'Retracted' })
  @ApiNotFoundResponse({ description: 'No such active case in this tenant' })
  async retractCase(@CurrentTenant() tenantId: TenantId, @Param('id', new ParseUUIDPipe()) id: string): Promise<void> {
    await this.learning.retractCase(tenantId, id);
  }
}
