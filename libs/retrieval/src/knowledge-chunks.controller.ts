import { Body, Controller, Get, Param, ParseUUIDPipe, Patch, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { TenantId } from '@arbiter/common';
import { Auth, CurrentTenant } from '@arbiter/tenancy';
import { EditChunkDto, ListChunksQueryDto } from './dto/knowledge.dto.js';
import { ChunkPageDto, ChunkViewDto } from './dto/knowledge-response.dto.js';
import { KnowledgeChunksService } from './knowledge-chunks.service.js';

/** A document's chunks, for review and correction (docs/documents.md "Chunks"). */
@ApiTags('knowledge')
@Controller()
export class KnowledgeChunksController {
  constructor(private readonly chunks: KnowledgeChunksService) {}

  @Get('admin/knowledge/documents/:id/chunks')
  @Auth('operator')
  @ApiOperation({ summary: "The document's chunks in the current embedding space, in order (cursor pagination)" })
  @ApiOkResponse({ type: ChunkPageDto })
  @ApiNotFoundResponse({ description: 'No such document in this tenant' })
  list(@CurrentTenant() tenantId: TenantId, @Param('id', new ParseUUIDPipe()) id: string, @Query() query: ListChunksQueryDto) {
    return this.chunks.list(tenantId, id, query);
  }

  @Patch('admin/knowledge/documents/:id/chunks/:chunkIndex')
  @Auth('operator')
  @ApiOperation({ summary: "Correct a chunk's text (re-embedded and re-indexed in one transaction) or disable/re-enable it" })
  @ApiOkResponse({ type: ChunkViewDto })
  @ApiBadRequestResponse({ description: 'Bad chunkIndex or body (details.fields names them); nothing is written' })
  @ApiNotFoundResponse({ description: 'No such document or chunk in this tenant' })
  edit(@CurrentTenant() tenantId: TenantId, @Param('id', new ParseUUIDPipe()) id: string, @Param('chunkIndex') chunkIndex: string, @Body() dto: EditChunkDto) {
    return this.chunks.edit(tenantId, id, chunkIndex, dto);
  }
}
