import { Body, Controller, Get, Headers, HttpCode, Param, ParseUUIDPipe, Post, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBody,
  ApiConsumes,
  ApiHeader,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiProduces,
  ApiTags,
  ApiUnsupportedMediaTypeResponse,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { MultipartBody, TenantId } from '@arbiter/common';
import { Auth, CurrentTenant } from '@arbiter/tenancy';
import { UploadStartedDto } from '../dto/knowledge-response.dto.js';
import { KnowledgeFilesService } from './knowledge-files.service.js';

/** `Content-Disposition` for a download: an ASCII fallback name and the real one (RFC 6266 / RFC 8187). */
export function attachmentHeader(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

@ApiTags('knowledge')
@Controller('admin/knowledge')
export class KnowledgeFilesController {
  constructor(private readonly files: KnowledgeFilesService) {}

  @Post('files')
  @Auth('operator')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Upload files (PDF, DOCX, HTML, Markdown, text, CSV/XLSX FAQ sheets) into the knowledge base',
    description:
      'multipart/form-data: one or more `file` parts, optional `domain`, `keywords` (comma-separated) and `metadata` (a JSON object). ' +
      'Each file is checked at the door (size, empty, type sniffed from its bytes); accepted files are stored and the `retrieval.import` job ' +
      'extracts, chunks (by headings, with page and section), embeds and indexes them: follow it with GET /admin/knowledge/imports/:id. ' +
      'The same file name replaces its document; identical bytes are `unchanged`. A request whose every file is refused stores nothing (415/413/400 naming each file).',
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({
    schema: {
      type: 'object',
      required: ['file'],
      properties: {
        file: { type: 'array', items: { type: 'string', format: 'binary' } },
        domain: { type: 'string', maxLength: 100, example: 'robot-arm' },
        keywords: { type: 'string', example: '示教器, teach pendant' },
        metadata: { type: 'string', example: '{"product":"TP10","lang":"zh"}', description: 'A JSON object' },
      },
    },
  })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description: 'A retry with the same key and the same files answers the first upload (the same importId)',
  })
  @ApiAcceptedResponse({ type: UploadStartedDto })
  @ApiUnsupportedMediaTypeResponse({ description: 'Not multipart/form-data, or no file of a supported type' })
  @ApiPayloadTooLargeResponse({ description: 'The request is over UPLOAD_MAX_REQUEST_BYTES, or every file is over a limit' })
  upload(@CurrentTenant() tenantId: TenantId, @Body() body: MultipartBody, @Headers('idempotency-key') idempotencyKey?: string) {
    return this.files.upload(tenantId, body, idempotencyKey);
  }

  @Get('documents/:id/file')
  @Auth('operator')
  @ApiOperation({ summary: 'Download the file a document was made from, as it was uploaded' })
  @ApiProduces('application/octet-stream')
  @ApiOkResponse({ description: 'The original bytes, with their media type and file name' })
  @ApiNotFoundResponse({ description: 'No such document in this tenant, or it was not made from a file' })
  async download(
    @CurrentTenant() tenantId: TenantId,
    @Param('id', new ParseUUIDPipe()) id: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Buffer> {
    const file = await this.files.download(tenantId, id);
    void reply.header('content-type', file.mediaType).header('content-disposition', attachmentHeader(file.fileName)).header('cache-control', 'no-store');
    return file.bytes;
  }
}
