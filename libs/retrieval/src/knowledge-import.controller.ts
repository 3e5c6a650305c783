import { Body, Controller, Get, HttpCode, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiConsumes, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { TenantId } from '@arbiter/common';
import { Auth, CurrentTenant } from '@arbiter/tenancy';
import { ImportStartedDto, ImportStatusDto } from './dto/knowledge-response.dto.js';
import { parseBulkBody } from './knowledge.controller.js';
import { KnowledgeImportService } from './knowledge-import.service.js';

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
  @ApiBody({ schema: { type: 'array', items: { $ref: '#/components/schemas/UpsertDocumentDto' } } })
  @ApiAcceptedResponse({ type: ImportStartedDto })
  start(@CurrentTenant() tenantId: TenantId, @Body() body: unknown) {
    return this.imports.start(tenantId, parseBulkBody(body));
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
