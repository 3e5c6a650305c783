import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Put, Query } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiCreatedResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { TenantId } from '@arbiter/common';
import { Auth, CurrentTenant } from '@arbiter/tenancy';
import { ListDocumentsQueryDto, LookupDto, RetrievalSettingsDto, UpsertDocumentDto } from './dto/knowledge.dto.js';
import { BulkImportResultDto, DocumentDetailDto, DocumentPageDto, LookupResultDto, RetrievalSettingsViewDto, UpsertResultDto } from './dto/knowledge-response.dto.js';
import { KnowledgeService } from './knowledge.service.js';
import { LookupService, type LookupResult } from './lookup.service.js';
import { RetrievalErrorCode, RetrievalException } from './retrieval.exception.js';
import { RetrievalSettingsService } from './retrieval-settings.service.js';

/** Parses a bulk body: a JSON array, `{documents: [...]}`, or NDJSON text (one document per line). */
export function parseBulkBody(body: unknown): unknown[] {
  if (Array.isArray(body)) return body;
  if (body && typeof body === 'object' && Array.isArray((body as { documents?: unknown }).documents)) return (body as { documents: unknown[] }).documents;
  if (typeof body === 'string') {
    const items: unknown[] = [];
    for (const [i, line] of body.split(/\r?\n/).entries()) {
      if (!line.trim()) continue;
      try {
        items.push(JSON.parse(line));
      } catch {
        throw new RetrievalException(RetrievalErrorCode.INVALID_BULK_BODY, `line ${i + 1} is not valid JSON`);
      }
    }
    return items;
  }
  throw new RetrievalException(RetrievalErrorCode.INVALID_BULK_BODY);
}

@ApiTags('knowledge')
@Controller()
export class KnowledgeController {
  constructor(
    private readonly knowledge: KnowledgeService,
    private readonly lookups: LookupService,
    private readonly settings: RetrievalSettingsService,
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
  @ApiBody({ schema: { type: 'array', items: { $ref: '#/components/schemas/UpsertDocumentDto' } } })
  bulk(@CurrentTenant() tenantId: TenantId, @Body() body: unknown) {
    return this.knowledge.bulk(tenantId, parseBulkBody(body));
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
  getConfig(@CurrentTenant() tenantId: TenantId) {
    return this.settings.get(tenantId);
  }

  @Put('admin/knowledge/config')
  @Auth('operator')
  @ApiOperation({ summary: 'Merge a partial override into the tenant retrieval settings; returns the effective settings' })
  @ApiOkResponse({ type: RetrievalSettingsViewDto })
  putConfig(@CurrentTenant() tenantId: TenantId, @Body() dto: RetrievalSettingsDto) {
    return this.settings.update(tenantId, dto);
  }

  @Post('ai/knowledge/lookup')
  @Auth('client')
  @HttpCode(200)
  @ApiOperation({ summary: 'Graded knowledge lookup (L0 exact + L1 vector) with per-session action memory and retrieval confidence' })
  @ApiOkResponse({ type: LookupResultDto, description: 'LookupResult (BRIEF §4.2)' })
  lookup(@CurrentTenant() tenantId: TenantId, @Body() dto: LookupDto): Promise<LookupResult> {
    return this.lookups.lookup(tenantId, dto);
  }
}
