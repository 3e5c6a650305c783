import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Put, Query } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiCreatedResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { BulkBody, type BulkItem, type TenantId } from '@arbiter/common';
import { Auth, CurrentTenant } from '@arbiter/tenancy';
import { FitGradingDto, ListDocumentsQueryDto, LookupDto, RetrievalSettingsDto, UpsertDocumentDto } from './dto/knowledge.dto.js';
import {
  BulkImportResultDto,
  DocumentDetailDto,
  DocumentPageDto,
  GradingFitResultDto,
  GradingViewDto,
  LookupResultDto,
  RetrievalSettingsViewDto,
  UpsertResultDto,
} from './dto/knowledge-response.dto.js';
import { KnowledgeService, MAX_BULK_ITEMS } from './knowledge.service.js';
import { LookupService, type LookupResult } from './lookup.service.js';
import { RetrievalErrorCode, RetrievalException } from './retrieval.exception.js';
import { type EffectiveRetrievalSettings, RetrievalSettingsService } from './retrieval-settings.service.js';
import { GradingService } from './grading.service.js';

/** The settings as operators see and set them (the calibration itself: GET /admin/knowledge/grading). */
function settingsView(s: EffectiveRetrievalSettings): RetrievalSettingsViewDto {
  return {
    normalization: s.normalization,
    fusion: s.fusion,
    calibrationSource: s.calibrationSource,
    defaultFilter: s.defaultFilter,
    memoryTtlSeconds: s.memoryTtlSeconds,
    chunkSize: s.chunkSize,
    chunkOverlap: s.chunkOverlap,
  };
}

/** The three forms a bulk or import body takes (docs/http-edge.md "Bodies"): an array, `{documents: [...]}`, NDJSON text. */
export const BULK_BODY_SCHEMA = {
  oneOf: [
    { type: 'array', items: { $ref: '#/components/schemas/UpsertDocumentDto' } },
    { type: 'object', required: ['documents'], properties: { documents: { type: 'array', items: { $ref: '#/components/schemas/UpsertDocumentDto' } } } },
    { type: 'string', description: 'NDJSON (application/x-ndjson): one document per line' },
  ],
};

/** A bulk or import body's client error (docs/http-edge.md "Bodies"). */
export const invalidBulkBody = (detail?: string) => new RetrievalException(RetrievalErrorCode.INVALID_BULK_BODY, detail);

/** A bulk or import body of documents; `checkCount` refuses a count before any item is validated. */
export const DocumentsBody = (checkCount: (count: number) => void) =>
  BulkBody({ dto: UpsertDocumentDto, key: 'documents', invalid: invalidBulkBody, checkCount });

@ApiTags('knowledge')
@Controller()
export class KnowledgeController {
  constructor(
    private readonly knowledge: KnowledgeService,
    private readonly lookups: LookupService,
    private readonly settings: RetrievalSettingsService,
    private readonly grading: GradingService,
  ) {}

  @Post('admin/knowledge/documents')
  @Auth('operator')
  @ApiOperation({ summary: 'Upsert a document by filePath (chunk + embed; replaces its chunks atomically)' })
  @ApiCreatedResponse({ type: UpsertResultDto, description: 'Stored; `status` says created, updated or unchanged' })
  async upsert(@CurrentTenant() tenantId: TenantId, @Body() dto: UpsertDocumentDto) {
    const r = await this.knowledge.upsert(tenantId, dto);
    return { status: r.status, document: r.document };
  }

  @Post('admin/knowledge/documents/bulk')
  @Auth('operator')
  @HttpCode(200)
  @ApiOperation({ summary: 'Import many documents: JSON array, {documents: [...]}, or NDJSON (application/x-ndjson); per-item results' })
  @ApiConsumes('application/json', 'application/x-ndjson')
  @ApiOkResponse({ type: BulkImportResultDto, description: 'One result per item, in order' })
  @ApiBody({ schema: BULK_BODY_SCHEMA })
  bulk(
    @CurrentTenant() tenantId: TenantId,
    @DocumentsBody((count) => {
      if (count > MAX_BULK_ITEMS) throw invalidBulkBody(`at most ${MAX_BULK_ITEMS} documents per request, got ${count}`);
    })
    items: BulkItem<UpsertDocumentDto>[],
  ) {
    return this.knowledge.bulk(tenantId, items);
  }

  @Get('admin/knowledge/documents')
  @Auth('operator')
  @ApiOperation({ summary: 'List documents (newest first, cursor pagination, optional domain filter)' })
  @ApiOkResponse({ type: DocumentPageDto })
  list(@CurrentTenant() tenantId: TenantId, @Query() query: ListDocumentsQueryDto) {
    return this.knowledge.list(tenantId, query);
  }

  @Get('admin/knowledge/documents/:id')
  @Auth('operator')
  @ApiOkResponse({ type: DocumentDetailDto })
  @ApiNotFoundResponse({ description: 'No such document in this tenant' })
  get(@CurrentTenant() tenantId: TenantId, @Param('id', new ParseUUIDPipe()) id: string) {
    return this.knowledge.get(tenantId, id);
  }

  @Delete('admin/knowledge/documents/:id')
  @Auth('operator')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Deleted with its chunks' })
  @ApiNotFoundResponse({ description: 'No such document in this tenant' })
  async delete(@CurrentTenant() tenantId: TenantId, @Param('id', new ParseUUIDPipe()) id: string): Promise<void> {
    await this.knowledge.delete(tenantId, id);
  }

  @Get('admin/knowledge/config')
  @Auth('operator')
  @ApiOperation({ summary: 'Effective retrieval settings (retrieval.normalization.*, memory TTL, chunking)' })
  @ApiOkResponse({ type: RetrievalSettingsViewDto })
  async getConfig(@CurrentTenant() tenantId: TenantId) {
    return settingsView(await this.settings.get(tenantId));
  }

  @Put('admin/knowledge/config')
  @Auth('operator')
  @ApiOperation({ summary: 'Merge a partial override into the tenant retrieval settings; returns the effective settings' })
  @ApiOkResponse({ type: RetrievalSettingsViewDto })
  async putConfig(@CurrentTenant() tenantId: TenantId, @Body() dto: RetrievalSettingsDto) {
    return settingsView(await this.settings.update(tenantId, dto));
  }

  @Get('admin/knowledge/grading')
  @Auth('operator')
  @ApiOperation({ summary: 'The grade calibration in force: built-in, or fitted for this tenant and embedder (docs/retrieval.md)' })
  @ApiOkResponse({ type: GradingViewDto })
  getGrading(@CurrentTenant() tenantId: TenantId) {
    return this.grading.view(tenantId);
  }

  @Post('admin/knowledge/grading/fit')
  @Auth('operator')
  @HttpCode(200)
  @ApiOperation({ summary: 'Fit the grade calibration from labelled questions (query → filePath, or null when unanswerable); applies it unless dryRun' })
  @ApiOkResponse({ type: GradingFitResultDto })
  fitGrading(@CurrentTenant() tenantId: TenantId, @Body() dto: FitGradingDto) {
    return this.grading.fit(tenantId, dto);
  }

  @Delete('admin/knowledge/grading')
  @Auth('operator')
  @ApiOperation({ summary: 'Drop the fitted calibration: back to the built-in one' })
  @ApiOkResponse({ type: GradingViewDto })
  resetGrading(@CurrentTenant() tenantId: TenantId) {
    return this.grading.reset(tenantId);
  }

  @Post('ai/knowledge/lookup')
  @Auth('client', { viewer: true })
  @HttpCode(200)
  @ApiOperation({
    summary: 'Graded knowledge lookup (hybrid: exact L0 + BM25 + vector, fused and calibrated) with per-session action memory and retrieval confidence',
  })
  @ApiOkResponse({ type: LookupResultDto, description: 'LookupResult (docs/spec/retrieval.md)' })
  lookup(@CurrentTenant() tenantId: TenantId, @Body() dto: LookupDto): Promise<LookupResult> {
    return this.lookups.lookup(tenantId, dto);
  }
}
