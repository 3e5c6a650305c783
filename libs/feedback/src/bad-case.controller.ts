import { Body, Controller, Get, HttpCode, Param, ParseUUIDPipe, Post, Put, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { TenantId } from '@arbiter/common';
import { Auth, CurrentTenant } from '@arbiter/tenancy';
import {
  AcceptExampleDto,
  AcceptExampleResultDto,
  BadCaseDto,
  BadCasePageDto,
  BadCaseReportDto,
  BadCaseReportQueryDto,
  ListBadCasesQueryDto,
  PutBadCaseReviewDto,
} from './dto/bad-case.dto.js';
import { BadCaseService } from './bad-case.service.js';

/**
 * The bad-case review queue: `/admin/bad-cases[/report|/:sessionId/accept-example|/:sessionId/review]`. Its class name is
 * the prefix of its routes' OpenAPI operation ids (the console's generated types name them).
 */
@ApiTags('feedback')
@Controller('admin')
@Auth('operator')
export class ReviewController {
  constructor(private readonly badCases: BadCaseService) {}

  @Get('bad-cases')
  @ApiOkResponse({ type: BadCasePageDto, description: 'Sessions marked not useful, newest first (cursor pagination), filterable by review status' })
  @ApiBadRequestResponse({ description: 'status not OPEN or RESOLVED, or an invalid cursor/limit' })
  listBadCases(@CurrentTenant() tenantId: TenantId, @Query() query: ListBadCasesQueryDto): Promise<BadCasePageDto> {
    return this.badCases.listBadCases(tenantId, query);
  }

  @Get('bad-cases/report')
  @ApiOkResponse({ type: BadCaseReportDto, description: 'Bad cases marked in the window, counted per failure layer and attribution rule' })
  @ApiBadRequestResponse({ description: 'from/to not an ISO-8601 instant with a zone, or from not before to' })
  badCaseReport(@CurrentTenant() tenantId: TenantId, @Query() query: BadCaseReportQueryDto): Promise<BadCaseReportDto> {
    return this.badCases.badCaseReport(tenantId, query);
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
    return this.badCases.acceptExample(tenantId, sessionId, body.intent);
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
    return this.badCases.review(tenantId, sessionId, body);
  }
}
