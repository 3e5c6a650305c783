import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiBadRequestResponse, ApiProduces, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { TenantId } from '@arbiter/common';
import { Auth, CurrentTenant } from '@arbiter/tenancy';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ChatStreamService } from './chat-stream.service.js';
import { wantsEventStream } from './chat-stream.js';
import { ChatService } from './chat.service.js';
import { ChatRequestDto, ChatResponseDto } from './dto/chat.dto.js';

@ApiTags('chat')
@Controller()
export class ChatController {
  constructor(
    private readonly chat: ChatService,
    private readonly streams: ChatStreamService,
  ) {}

  @Post('ai/chat')
  @Auth('client')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Answer one user message: route → clarify / rule answer / hand-off / knowledge answer, with confidence and sources',
    description:
      'Creates (or continues) a conversation and records one session with its route trace, tool invocations, self-evaluation and coverage decision. ' +
      'Knowledge answers are extractive without an LLM, or come from a tool-calling agent (`lookup_knowledge`, at most CHAT_MAX_STEPS model calls) when one is configured; ' +
      'an LLM failure or timeout falls back to the extractive answer (trace event `fallback-triggered`). ' +
      'Confidence policy: high → answer; medium → answer with a caveat; low or INSUFFICIENT → "not found, contact support" and `shouldTransfer`; PRECISE / HIGHLY_RELEVANT lookups are always answered, without a caveat. ' +
      'Confidences: `routingConfidence` (intent router), `retrievalConfidence` (knowledge lookup, null without one), `answerConfidence` (self-evaluation, null until stored); ' +
      '`confidence` (compatibility): the retrieval confidence of a knowledge answer, 0 for the not-found exit and a failed run, the routing confidence for replies without a knowledge search. ' +
      'A run that fails after the session started still answers 200 with a polite reply and the `sessionId` (session status FAILED, error recorded). ' +
      'With `Accept: text/event-stream` or `"stream": true` the answer is server-sent events: `route`, `lookup` (per lookup), `delta` (the reply in pieces), then `done` (this JSON body) or `error` (the error shape); ' +
      'errors before the first event answer as JSON; a client that disconnects ends the turn (session FAILED, error `client_disconnected`). See docs/chat-clients.md.',
  })
  @ApiProduces('application/json', 'text/event-stream')
  @ApiOkResponse({ type: ChatResponseDto })
  @ApiBadRequestResponse({ description: 'Empty or over-long message (max 4,000 characters), malformed conversationId, unknown media type' })
  @ApiNotFoundResponse({ description: 'conversationId is not a conversation of this tenant' })
  @ApiServiceUnavailableResponse({ description: 'Database unavailable; nothing was recorded' })
  async executeChat(
    @CurrentTenant() tenantId: TenantId,
    @Body() dto: ChatRequestDto,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    if (wantsEventStream(request.headers.accept, dto.stream)) return this.streams.streamChat(tenantId, dto, reply, String(request.id));
    void reply.status(200).send(await this.chat.executeChat(tenantId, dto));
  }
}
