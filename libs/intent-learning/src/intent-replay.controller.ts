import { Controller, Get, Param, ParseUUIDPipe, Post, Query, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBadRequestResponse, ApiBody, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { PageQueryDto, ParsedBody, type TenantId } from '@arbiter/common';
import { Auth, CurrentTenant } from '@arbiter/tenancy';
import { IntentReplayDto, IntentReplayPageDto, IntentReplayRequestDto } from './dto/intent-replay.dto.js';
import { IntentReplayService, parseReplayRequest, type ReplayRequest } from './intent-replay.service.js';

@ApiTags('learning')
@Controller('admin/intent')
export class IntentReplayController {
  constructor(private readonly replays: IntentReplayService) {}

  @Post('replay')
  @Auth('operator')
  @ApiOperation({
    summary:
      'Re-route logged decisions (a time window or ids) under a candidate config and/or a draft rule set, with no side effects ' +
      '(docs/learning.md "Replay"). 202 + a resumable job; an empty scope answers 200 at once with zero counts.',
  })
  @ApiBody({ type: IntentReplayRequestDto })
  @ApiAcceptedResponse({ type: IntentReplayDto, description: 'Queued; GET /admin/intent/replays/:id for the report' })
  @ApiOkResponse({ type: IntentReplayDto, description: 'Nothing in scope: finished with zero counts' })
  @ApiBadRequestResponse({ description: 'Bad window or ids, or an invalid candidate (config.<key> / rules[i].<field> named)' })
  // Checked by parseReplayRequest (and the candidate rules by the intent lib's sandbox) so every problem is named in one 400.
  async request(
    @CurrentTenant() tenantId: TenantId,
    @ParsedBody((body) => parseReplayRequest(body)) body: ReplayRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const { replay, queued } = await this.replays.request(tenantId, body);
    void reply.status(queued ? 202 : 200);
    return replay;
  }

  @Get('replays')
  @Auth('operator')
  @ApiOperation({ summary: 'Replays of this tenant, newest first (cursor pagination)' })
  @ApiOkResponse({ type: IntentReplayPageDto })
  list(@CurrentTenant() tenantId: TenantId, @Query() query: PageQueryDto) {
    return this.replays.list(tenantId, query);
  }

  @Get('replays/:id')
  @Auth('operator')
  @ApiOperation({ summary: 'One replay: status, progress via its job, and once succeeded the report' })
  @ApiOkResponse({ type: IntentReplayDto })
  @ApiNotFoundResponse({ description: 'No such replay in this tenant' })
  get(@CurrentTenant() tenantId: TenantId, @Param('id', new ParseUUIDPipe()) id: string) {
    return this.replays.get(tenantId, id);
  }
}
