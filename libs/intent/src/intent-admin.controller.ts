import { Body, Controller, Delete, Get, Headers, HttpCode, Param, ParseUUIDPipe, Patch, Post, Put, Query, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiCreatedResponse,
  ApiHeader,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiPreconditionFailedResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { ParsedBody, type TenantId } from '@arbiter/common';
import { Auth, CurrentTenant } from '@arbiter/tenancy';
import { BulkCreateIntentRulesDto, CreateIntentRuleDto, EvaluateIntentRulesDto, ListIntentRulesQueryDto, UpdateIntentRuleDto } from './dto/intent-rule.dto.js';
import { IntentConfigDto, IntentEvaluationReportDto, IntentRulePageDto, IntentRuleViewDto, IntentStatusDto } from './dto/intent-response.dto.js';
import { IntentConfigService, parseConfigVersion, parseIntentConfigPatch } from './intent-config.service.js';
import type { IntentConfigOverride } from './routing/index.js';
import { IntentRulesService } from './intent-rules.service.js';
import { type EvaluateRequest, parseEvaluateBody } from './dto/labelled-examples.js';
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
  @ApiCreatedResponse({ type: IntentRuleViewDto })
  @ApiBadRequestResponse({ description: 'Invalid rule (no matcher, bad regex, wrong vector dimension, limits), fields named' })
  create(@CurrentTenant() tenantId: TenantId, @Body() dto: CreateIntentRuleDto) {
    return this.rules.create(tenantId, dto);
  }

  @Post('intent-rules/bulk')
  @Auth('operator')
  @ApiOperation({ summary: 'Create many intent rules at once (≤ 500, all or none; one retrain of the router instead of one per rule)' })
  @ApiCreatedResponse({ type: [IntentRuleViewDto] })
  @ApiBadRequestResponse({ description: 'A rule is invalid: nothing is created, the fields are named `rules[i].<field>`' })
  createMany(@CurrentTenant() tenantId: TenantId, @Body() dto: BulkCreateIntentRulesDto) {
    return this.rules.createMany(tenantId, dto.rules);
  }

  @Get('intent-rules')
  @Auth('operator')
  @ApiOperation({ summary: 'List intent rules (newest first, cursor pagination, optional intent filter)' })
  @ApiOkResponse({ type: IntentRulePageDto })
  list(@CurrentTenant() tenantId: TenantId, @Query() query: ListIntentRulesQueryDto) {
    return this.rules.list(tenantId, query);
  }

  @Post('intent-rules/evaluate')
  @Auth('operator', { viewer: true })
  @HttpCode(200)
  @ApiOkResponse({ type: IntentEvaluationReportDto })
  @ApiOperation({
    summary:
      'Route labelled examples [{text, intent|null}] with the tenant rules → accuracy, per-intent P/R/F1, confusions, OOS recall, clarify/judge rates, decision reasons',
  })
  @ApiBody({ type: EvaluateIntentRulesDto })
  // Not the validation pipe: parseEvaluateBody checks 5,000 examples in a few ms.
  evaluate(@CurrentTenant() tenantId: TenantId, @ParsedBody(parseEvaluateBody) body: EvaluateRequest) {
    return this.intents.evaluate(tenantId, body);
  }

  @Get('intent-rules/:id')
  @Auth('operator')
  @ApiOkResponse({ type: IntentRuleViewDto })
  @ApiNotFoundResponse({ description: 'No such rule in this tenant' })
  get(@CurrentTenant() tenantId: TenantId, @Param('id', new ParseUUIDPipe()) id: string) {
    return this.rules.get(tenantId, id);
  }

  @Patch('intent-rules/:id')
  @Auth('operator')
  @ApiOperation({ summary: 'Update any subset of a rule (null clears description, reply, intentVector); re-validated as a whole' })
  @ApiOkResponse({ type: IntentRuleViewDto })
  @ApiNotFoundResponse({ description: 'No such rule in this tenant' })
  update(@CurrentTenant() tenantId: TenantId, @Param('id', new ParseUUIDPipe()) id: string, @Body() dto: UpdateIntentRuleDto) {
    return this.rules.update(tenantId, id, dto);
  }

  @Delete('intent-rules/:id')
  @Auth('operator')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiNotFoundResponse({ description: 'No such rule in this tenant' })
  async delete(@CurrentTenant() tenantId: TenantId, @Param('id', new ParseUUIDPipe()) id: string): Promise<void> {
    await this.rules.delete(tenantId, id);
  }

  @Get('intent/status')
  @Auth('operator')
  @ApiOperation({
    summary:
      "The tenant's rules version, the version of the classifier serving on this API process, the training under way (state, progress) and the last training's duration",
  })
  @ApiOkResponse({ type: IntentStatusDto })
  status(@CurrentTenant() tenantId: TenantId) {
    return this.intents.status(tenantId);
  }

  @Get('intent-config')
  @Auth('operator')
  @ApiOperation({ summary: 'Effective intent routing config (defaults overlaid with the tenant override)' })
  @ApiOkResponse({
    type: IntentConfigDto,
    headers: { ETag: { description: 'The config version, e.g. "3" (send it as If-Match to PUT)', schema: { type: 'string' } } },
  })
  async getConfig(@CurrentTenant() tenantId: TenantId, @Res({ passthrough: true }) reply: FastifyReply) {
    const { config, version } = await this.configs.versioned(tenantId);
    void reply.header('ETag', `"${version}"`);
    return config;
  }

  @Put('intent-config')
  @Auth('operator')
  @ApiOperation({ summary: 'Merge a partial override (unknown keys and out-of-range values → 400); returns the effective config' })
  @ApiBody({
    description: 'Any subset of the config keys (see IntentConfigDto); weights may be partial',
    schema: {
      type: 'object',
      properties: {
        weights: { type: 'object', properties: { rule: { type: 'number' }, semantic: { type: 'number' }, llm: { type: 'number' } } },
        semanticThreshold: { type: 'number' },
        conflictThreshold: { type: 'number' },
        grayZoneThreshold: { type: 'number' },
        minTriggerThreshold: { type: 'number' },
        clarifyThreshold: { type: 'number' },
        multiIntentThreshold: { type: 'number' },
        llmJudgeEnabled: { type: 'boolean' },
        semanticMatcherEnabled: { type: 'boolean' },
        semanticMatcherTimeoutMs: { type: 'integer' },
        llmJudgeTimeoutMs: { type: 'integer' },
        semanticTopK: { type: 'integer' },
        semanticAggregation: { type: 'string', enum: ['mean', 'max', 'topk_mean', 'centroid_knn', 'classifier'] },
        semanticExampleK: { type: 'integer' },
        calibration: { type: 'object', nullable: true, description: 'Isotonic map {method, x, y} proposed by a fit; null removes it' },
      },
      additionalProperties: false,
      example: { weights: { rule: 0.5, semantic: 0.3, llm: 0.2 }, semanticThreshold: 0.7, llmJudgeEnabled: false, semanticAggregation: 'classifier' },
    },
  })
  @ApiHeader({
    name: 'If-Match',
    required: false,
    description: "Apply only if the config is still this version (the ETag of GET, or a fit's configVersion); otherwise 412",
  })
  @ApiOkResponse({ type: IntentConfigDto, description: 'The effective config (ETag: its new version)' })
  @ApiPreconditionFailedResponse({ description: 'If-Match names an older config version' })
  async putConfig(
    @CurrentTenant() tenantId: TenantId,
    @ParsedBody(parseIntentConfigPatch) body: IntentConfigOverride,
    @Headers('if-match') ifMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const { config, version } = await this.configs.update(tenantId, body, parseConfigVersion(ifMatch));
    void reply.header('ETag', `"${version}"`);
    return config;
  }
}
