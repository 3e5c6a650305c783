import { Controller, Get, HttpCode, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiConsumes, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { BulkItem, TenantId } from '@arbiter/common';
import { Auth, CurrentTenant } from '@arbiter/tenancy';
import { ImportStartedDto, ImportStatusDto } from './dto/knowledge-response.dto.js';
import { UpsertDocumentDto } from './dto/knowledge.dto.js';
import { BULK_BODY_SCHEMA, DocumentsBody, invalidBulkBody } from './knowledge.controller.js';
import { KnowledgeImportService, MAX_IMPORT_ITEMS } from './knowledge-import.service.js';

@ApiTags('knowledge')
@Controller('admin/knowledge/imports')
export class KnowledgeImportController {
  constructor(private readonly imports: KnowledgeImportService) {}

  @Post()
  @Auth('operator')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Import many documents as a resumable job (up to 10,000 per request, 64 MiB): JSON array, {documents: [...]}, or NDJSON',
    description:
      'Validates every item at once (refused items are listed), stores the rest and answers 202; the `retrieval.import` job writes them in batches. Follow it with GET /admin/knowledge/imports/:id.',
  })
  @ApiConsumes('application/json', 'application/x-ndjson')
  @ApiBody({ schema: BULK_BODY_SCHEMA })
  @ApiAcceptedResponse({ type: ImportStartedDto })
  start(
    @CurrentTenant() tenantId: TenantId,
    @DocumentsBody((count) => {
      if (!count) throw invalidBulkBody('the import holds no documents');
      if (count > MAX_IMPORT_ITEMS) throw invalidBulkBody(`at most ${MAX_IMPORT_ITEMS} documents per import, got ${count}`);
    })
    items: BulkItem<UpsertDocumentDto>[],
  ) {
    return this.imports.start(tenantId, items);
  }

  @Get(':id')
  @Auth('operator')
  @ApiOperation({ summary: 'Progress and outcome of an import: counts per status, the first 100 failures' })
  @ApiOkResponse({ type: ImportStatusDto })
  @ApiNotFoundResponse({ description: 'No such import in this tenant' })
  status(@CurrentTenant() tenantId: TenantId, @Param('id', new ParseUUIDPipe()) id: string) {
    return this.imports.status(tenantId, id);
  }
}
