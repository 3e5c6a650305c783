import { Body, Controller, Get, Param, ParseUUIDPipe, Put, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { TenantId } from '@arbiter/common';
import { Auth, CurrentTenant } from '@arbiter/tenancy';
import { DecisionDto, DecisionLogSettingsDto, DecisionPageDto, LabelDecisionDto, ListDecisionsQueryDto } from './dto/decision.dto.js';
import { LabelledExampleDto } from './dto/labelled-set.dto.js';
import { DecisionLogService } from './decision-log.service.js';

@ApiTags('learning')
@Controller('admin/intent')
export class DecisionsController {
  constructor(private readonly decisions: DecisionLogService) {}

  @Get('decisions')
  @Auth('operator')
  @ApiOperation({
    summary:
      'Logged routing decisions of POST /ai/intent/route and chat turns (newest first, cursor pagination; filters: from/to, intent, reason, needClarify, source). ' +
      'Written in batches ~100 ms after the decision (docs/decision-log.md).',
  })
  @ApiOkResponse({ type: DecisionPageDto })
  @ApiBadRequestResponse({ description: 'A filter is malformed or from is after to (the field is named)' })
  list(@CurrentTenant() tenantId: TenantId, @Query() query: ListDecisionsQueryDto) {
    return this.decisions.list(tenantId, query);
  }

  @Get('decisions/:id')
  @Auth('operator')
  @ApiOkResponse({ type: DecisionDto })
  @ApiNotFoundResponse({ description: 'No such decision in this tenant' })
  get(@CurrentTenant() tenantId: TenantId, @Param('id', new ParseUUIDPipe()) id: string) {
    return this.decisions.get(tenantId, id);
  }

  @Put('decisions/:id/label')
  @Auth('operator')
  @ApiOperation({ summary: "Set the correct intent (null: out of scope) of a logged decision; the label joins the tenant's review labelled set" })
  @ApiOkResponse({ type: LabelledExampleDto, description: 'The review-set example' })
  @ApiBadRequestResponse({ description: 'intent malformed, or no rule of the tenant names it (UNKNOWN_INTENTS lists it)' })
  @ApiNotFoundResponse({ description: 'No such decision in this tenant' })
  label(@CurrentTenant() tenantId: TenantId, @Param('id', new ParseUUIDPipe()) id: string, @Body() dto: LabelDecisionDto) {
    return this.decisions.label(tenantId, id, dto.intent);
  }

  @Get('decision-settings')
  @Auth('operator')
  @ApiOperation({ summary: 'Decision-log settings of the tenant (retention; default 30 days)' })
  @ApiOkResponse({ type: DecisionLogSettingsDto })
  settings(@CurrentTenant() tenantId: TenantId) {
    return this.decisions.retention(tenantId);
  }

  @Put('decision-settings')
  @Auth('operator')
  @ApiOperation({ summary: 'Set the decision-log retention (1–3650 days); the daily learning.decision-log-cleanup job deletes older decisions' })
  @ApiOkResponse({ type: DecisionLogSettingsDto })
  @ApiBadRequestResponse({ description: 'retentionDays is not an integer in [1, 3650]' })
  setSettings(@CurrentTenant() tenantId: TenantId, @Body() dto: DecisionLogSettingsDto) {
    return this.decisions.setRetention(tenantId, dto.retentionDays);
  }
}
