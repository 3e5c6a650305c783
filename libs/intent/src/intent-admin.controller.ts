import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Patch, Post, Put, Query } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { TenantId } from '@arbiter/common';
import { Auth, CurrentTenant } from '@arbiter/tenancy';
import { CreateIntentRuleDto, EvaluateIntentRulesDto, ListIntentRulesQueryDto, UpdateIntentRuleDto } from './dto/intent-rule.dto.js';
import { IntentConfigService } from './intent-config.service.js';
import { IntentRulesService } from './intent-rules.service.js';
import { IntentService } from './intent.service.js';

@ApiTags('intent')
@Controller('admin')
export class IntentAdminController {
  constructor(
    private readonly rules: IntentRulesService,
    private readonly configs: IntentConfigService,
    private readonly intents: IntentService,
  ) {}

  @Post('intent-rules')
  @Auth('operator')
  @ApiOperation({ summary: 'Create an intent rule (validated; semanticExamples are embedded once, here)' })
  create(@CurrentTenant() tenantId: TenantId, @Body() dto: CreateIntentRuleDto) {
    return this.rules.create(tenantId, dto);
  }

  @Get('intent-rules')
  @Auth('operator')
  @ApiOperation({ summary: 'List intent rules (newest first, cursor pagination, optional intent filter)' })
  list(@CurrentTenant() tenantId: TenantId, @Query() query: ListIntentRulesQueryDto) {
    return this.rules.list(tenantId, query);
  }

  @Post('intent-rules/evaluate')
  @Auth('operator')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Route labelled examples [{text, intent|null}] with the tenant rules → accuracy, per-intent P/R/F1, confusions, OOS recall, clarify/judge rates, decision reasons',
  })
  evaluate(@CurrentTenant() tenantId: TenantId, @Body() dto: EvaluateIntentRulesDto) {
    return this.intents.evaluate(tenantId, dto);
  }

  @Get('intent-rules/:id')
  @Auth('operator')
  get(@CurrentTenant() tenantId: TenantId, @Param('id', new ParseUUIDPipe()) id: string) {
    return this.rules.get(tenantId, id);
  }

  @Patch('intent-rules/:id')
  @Auth('operator')
  @ApiOperation({ summary: 'Update any subset of a rule (null clears description, reply, intentVector); re-validated as a whole' })
  update(@CurrentTenant() tenantId: TenantId, @Param('id', new ParseUUIDPipe()) id: string, @Body() dto: UpdateIntentRuleDto) {
    return this.rules.update(tenantId, id, dto);
  }

  @Delete('intent-rules/:id')
  @Auth('operator')
  @HttpCode(204)
  async delete(@CurrentTenant() tenantId: TenantId, @Param('id', new ParseUUIDPipe()) id: string): Promise<void> {
    await this.rules.delete(tenantId, id);
  }

  @Get('intent-config')
  @Auth('operator')
  @ApiOperation({ summary: 'Effective intent routing config (defaults overlaid with the tenant override)' })
  getConfig(@CurrentTenant() tenantId: TenantId) {
    return this.configs.effective(tenantId);
  }

  @Put('intent-config')
  @Auth('operator')
  @ApiOperation({ summary: 'Merge a partial override (unknown keys and out-of-range values → 400); returns the effective config' })
  @ApiBody({
    schema: {
      type: 'object',
      example: { weights: { rule: 0.5, semantic: 0.3, llm: 0.2 }, semanticThreshold: 0.7, llmJudgeEnabled: false, semanticAggregation: 'classifier' },
    },
  })
  @ApiOkResponse({ description: 'The effective config' })
  putConfig(@CurrentTenant() tenantId: TenantId, @Body() body: unknown) {
    return this.configs.update(tenantId, body);
  }
}
