import { Body, Controller, Get, Headers, HttpCode, Post, Req, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiHeader,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiProduces,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TenantId } from '@arbiter/common';
import { Auth, CurrentTenant } from '@arbiter/tenancy';
import { ChatCompletionRequestDto } from './dto/chat-completion.dto.js';
import { modelList } from './openai-compat.js';
import { CONVERSATION_HEADER, OpenAiCompatService } from './openai-compat.service.js';

/** The OpenAI-compatible front door (docs/chat-clients.md): a tenant's client key as `Authorization: Bearer`, OpenAI's error shape. */
@ApiTags('openai-compatible')
@Controller('v1')
@Auth('client')
@ApiUnauthorizedResponse({
  description: "Missing or invalid key (`Authorization: Bearer <client key>` or X-Api-Key); OpenAI's `{error: {message, type, code}}` shape",
})
export class OpenAiCompatController {
  constructor(private readonly completions: OpenAiCompatService) {}

  @Get('models')
  @ApiOperation({ summary: 'OpenAI-compatible model list: `arbiter` (any `model` value is accepted by /v1/chat/completions)' })
  @ApiOkResponse({ description: '`{object: "list", data: [{id: "arbiter", object: "model", created, owned_by}]}`' })
  listModels(): ReturnType<typeof modelList> {
    return modelList();
  }

  @Post('chat/completions')
  @HttpCode(200)
  @ApiOperation({
    summary: 'OpenAI-compatible chat completion: one Arbiter chat turn (POST /ai/chat), streamed or not',
    description:
      'The last message (role user) is the turn; earlier user/assistant messages are its history, which the model sees when one is configured (offline answers use the last message only). ' +
      '`X-Conversation-Id` continues a conversation of this tenant and is returned on every answer. ' +
      "The body is a `chat.completion` (or, with `stream: true`, `chat.completion.chunk` data lines ending with `data: [DONE]`) with Arbiter's fields in the extension object `arbiter` " +
      '(the body of POST /ai/chat without `reply`: sessionId, conversationId, confidences, references, shouldTransfer, needClarify, candidates, intent, caseLibrary), on the body or the last chunk. ' +
      "Errors use OpenAI's shape `{error: {message, type, code, param, requestId}}`. See docs/chat-clients.md.",
  })
  @ApiHeader({ name: 'X-Conversation-Id', required: false, description: 'Continue this conversation (a UUID returned by an earlier answer)' })
  @ApiProduces('application/json', 'text/event-stream')
  @ApiOkResponse({ description: 'A `chat.completion` with `arbiter`, or its chunks as server-sent events' })
  @ApiBadRequestResponse({
    description:
      'A message with an unknown role or an empty or non-string content (`messages[3].role`), the last message not the user, `stream` not boolean, a malformed X-Conversation-Id',
  })
  @ApiPayloadTooLargeResponse({ description: 'Over 64 messages or 32,000 characters of content' })
  @ApiNotFoundResponse({ description: 'X-Conversation-Id is not a conversation of this tenant' })
  async createCompletion(
    @CurrentTenant() tenantId: TenantId,
    @Body() dto: ChatCompletionRequestDto,
    @Headers(CONVERSATION_HEADER) conversationId: string | undefined,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await this.completions.complete(tenantId, dto, conversationId, reply, String(request.id));
  }
}
