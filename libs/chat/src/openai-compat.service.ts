import { Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { randomUUID } from 'node:crypto';
import { isUUID } from 'class-validator';
import { DomainException, invalidRequest, toOpenAiErrorBody, type TenantId } from '@arbiter/common';
import { AppConfig } from '@arbiter/config';
import { SseResponse } from './chat-sse.js';
import { sseData } from './chat-stream.js';
import { ChatStreamService } from './chat-stream.service.js';
import { ChatService } from './chat.service.js';
import type { ChatCompletionRequestDto } from './dto/chat-completion.dto.js';
import type { ChatRequestDto } from './dto/chat.dto.js';
import { ARBITER_MODEL_ID, completionBody, completionChunk, mapCompletionMessages, type CompletionIdentity, type CompletionTurn } from './openai-compat.js';

export const CONVERSATION_HEADER = 'x-conversation-id';

/**
 * `POST /v1/chat/completions` (docs/chat-clients.md): the messages become one chat turn (ChatService), the
 * answer an OpenAI `chat.completion` or its chunks. `X-Conversation-Id` continues a conversation and is
 * returned on every answer. Everything is checked before the turn starts, so a rejected request writes nothing.
 */
@Injectable()
export class OpenAiCompatService {
  constructor(
    private readonly chat: ChatService,
    private readonly streams: ChatStreamService,
    private readonly config: AppConfig,
  ) {}

  async complete(
    tenantId: TenantId,
    dto: ChatCompletionRequestDto,
    conversationHeader: string | string[] | undefined,
    reply: FastifyReply,
    requestId: string,
  ): Promise<void> {
    const { turn, conversationId } = this.checked(dto, conversationHeader);
    if (conversationId) void reply.header(CONVERSATION_HEADER, conversationId);
    const chatDto: ChatRequestDto = {
      message: turn.message,
      channel: 'openai',
      ...(conversationId ? { conversationId } : {}),
      ...(dto.user ? { userRef: dto.user } : {}),
    };
    const identity: CompletionIdentity = { id: `chatcmpl-${randomUUID()}`, created: Math.floor(Date.now() / 1000), model: dto.model ?? ARBITER_MODEL_ID };
    if (dto.stream === true) return this.stream(tenantId, chatDto, turn, identity, reply, requestId);
    const response = await this.chat.executeChat(tenantId, chatDto, { history: turn.history });
    void reply.header(CONVERSATION_HEADER, response.conversationId).status(200).send(completionBody(identity, response));
  }

  private async stream(
    tenantId: TenantId,
    dto: ChatRequestDto,
    turn: CompletionTurn,
    identity: CompletionIdentity,
    reply: FastifyReply,
    requestId: string,
  ): Promise<void> {
    const sse = new SseResponse(reply, this.config.chat.streamHeartbeatMs);
    let opened = false;
    const open = () => {
      if (opened) return;
      opened = true;
      sse.write(sseData(completionChunk(identity, { kind: 'open' })));
    };
    // OpenAI's content cannot be taken back: after a `replace` delta (chat-stream.ts `AnswerRelay`) no more content
    // goes out, and the last chunk's `arbiter.reply` carries the reply instead.
    let replaced = false;
    await this.streams.run(tenantId, dto, sse, requestId, {
      // The header must be set before the first byte: the session (and a new conversation) exists before the route.
      started: ({ conversationId }) => void reply.header(CONVERSATION_HEADER, conversationId),
      history: turn.history,
      route: open,
      lookup: () => undefined,
      delta: (delta) => {
        if (delta.replace) replaced = true;
        if (replaced) return;
        open();
        sse.write(sseData(completionChunk(identity, { kind: 'content', content: delta.text })));
      },
      done: (response) => {
        open();
        sse.write(sseData(completionChunk(identity, { kind: 'finish', response, contentIsReply: !replaced })));
        sse.write(sseData('[DONE]'));
      },
      // OpenAI's clients throw on a data line carrying `error`.
      error: (body) => sse.write(sseData(toOpenAiErrorBody(body))),
    });
  }

  /** The request's turn, or the 400/413 naming the field and the limit. */
  private checked(dto: ChatCompletionRequestDto, conversationHeader: string | string[] | undefined): { turn: CompletionTurn; conversationId?: string } {
    const mapped = mapCompletionMessages(dto.messages, { turns: this.config.chat.historyTurns, chars: this.config.chat.historyChars });
    if (!mapped.ok) {
      const error = invalidRequest(mapped.errors);
      if (mapped.status === 400) throw error;
      // Too long a history: the same named fields, as 413.
      throw new DomainException('HISTORY_TOO_LARGE', 413, error.message, error.details);
    }
    const header = Array.isArray(conversationHeader) ? conversationHeader[0] : conversationHeader;
    if (header === undefined || header === '') return { turn: mapped.turn };
    if (!isUUID(header)) throw invalidRequest([{ field: 'X-Conversation-Id', errors: ['X-Conversation-Id must be a UUID'] }]);
    return { turn: mapped.turn, conversationId: header.toLowerCase() };
  }
}
