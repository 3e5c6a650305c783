import { Body, Controller, Get, HttpCode, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import { ApiBadRequestResponse, ApiCreatedResponse, ApiNotFoundResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { TenantId } from '@arbiter/common';
import { Auth, CurrentTenant } from '@arbiter/tenancy';
import { IngestSessionDto } from './dto/ingest-session.dto.js';
import { SessionViewDto } from './dto/session-view.dto.js';
import { SessionsService } from './sessions.service.js';

@ApiTags('sessions')
@Controller('api/sessions')
@Auth('client')
export class SessionsController {
  constructor(private readonly sessions: SessionsService) {}

  @Post()
  @HttpCode(201)
  @ApiCreatedResponse({ type: SessionViewDto, description: 'The stored session, already self-evaluated and coverage-checked when no LLM is configured' })
  @ApiBadRequestResponse({ description: 'Invalid body; the offending fields are named' })
  @ApiNotFoundResponse({ description: 'conversationId is not a conversation of this tenant' })
  ingest(@CurrentTenant() tenantId: TenantId, @Body() body: IngestSessionDto): Promise<SessionViewDto> {
    return this.sessions.ingest(tenantId, body);
  }

  @Get(':id')
  @ApiOkResponse({ type: SessionViewDto })
  @ApiNotFoundResponse({ description: 'No such session in this tenant' })
  get(@CurrentTenant() tenantId: TenantId, @Param('id', new ParseUUIDPipe({ version: '4' })) id: string): Promise<SessionViewDto> {
    return this.sessions.getView(tenantId, id);
  }
}
