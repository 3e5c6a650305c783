import { Body, Controller, Get, Headers, HttpCode, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiCreatedResponse,
  ApiHeader,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiTags,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import type { TenantId } from '@arbiter/common';
import { Auth, CurrentTenant } from '@arbiter/tenancy';
import { IngestSessionDto } from './dto/ingest-session.dto.js';
import { SessionViewDto } from './dto/session-view.dto.js';
import { parseIdempotencyKey } from './idempotency.js';
import { SessionsErrorCode, SessionsException } from './sessions.exception.js';
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
  @ApiUnprocessableEntityResponse({ description: 'IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was already used with a different body' })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description:
      'Makes retries safe: a repeat with the same key (per tenant) and body returns the session stored first instead of a duplicate; the same key with another body → 422. 1-200 printable ASCII characters.',
  })
  ingest(@CurrentTenant() tenantId: TenantId, @Body() body: IngestSessionDto, @Headers('idempotency-key') rawKey?: string): Promise<SessionViewDto> {
    const key = parseIdempotencyKey(rawKey);
    if (key === null) throw new SessionsException(SessionsErrorCode.InvalidIdempotencyKey);
    return this.sessions.ingest(tenantId, body, key);
  }

  @Get(':id')
  @ApiOkResponse({ type: SessionViewDto })
  @ApiNotFoundResponse({ description: 'No such session in this tenant' })
  get(@CurrentTenant() tenantId: TenantId, @Param('id', new ParseUUIDPipe({ version: '4' })) id: string): Promise<SessionViewDto> {
    return this.sessions.getView(tenantId, id);
  }
}
