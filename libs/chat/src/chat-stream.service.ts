import { Injectable, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { toErrorBody, type TenantId } from '@arbiter/common';
import { AppConfig } from '@arbiter/config';
import { SseResponse } from './chat-sse.js';
import { sentencePieces, sseEvent, type ChatTurnObserver } from './chat-stream.js';
import { ChatService, type ChatResponse } from './chat.service.js';
import type { ChatRequestDto } from './dto/chat.dto.js';

/** What a streamed turn writes: the turn's progress, the answer in pieces, then its end. */
export interface ChatStreamWriter extends Pick<ChatTurnObserver, 'started' | 'history'> {
  route: NonNullable<ChatTurnObserver['route']>;
  lookup: NonNullable<ChatTurnObserver['lookup']>;
  delta(text: string): void;
  done(response: ChatResponse): void;
  error(body: ReturnType<typeof toErrorBody>): void;
}

/**
 * A chat turn as server-sent events (docs/chat-api.md "Streaming"): the same turn as `POST /ai/chat`
 * (ChatService), observed. `delta` carries the final reply in sentence pieces (the model's answer is
 * post-processed by the confidence policy before it is final, so raw tokens are not sent), `done` the
 * non-streaming body. A client that disconnects aborts the turn (session FAILED `client_disconnected`).
 */
@Injectable()
export class ChatStreamService {
  private readonly logger = new Logger('ChatStream');

  constructor(
    private readonly chat: ChatService,
    private readonly config: AppConfig,
  ) {}

  /** `POST /ai/chat` with `Accept: text/event-stream` or `"stream": true`. */
  async streamChat(tenantId: TenantId, dto: ChatRequestDto, reply: FastifyReply, requestId: string): Promise<void> {
    const sse = new SseResponse(reply, this.config.chat.streamHeartbeatMs);
    await this.run(tenantId, dto, sse, requestId, {
      route: (e) => sse.write(sseEvent('route', e)),
      lookup: (e) => sse.write(sseEvent('lookup', e)),
      delta: (text) => sse.write(sseEvent('delta', { text })),
      done: (response) => sse.write(sseEvent('done', response)),
      error: (body) => sse.write(sseEvent('error', body)),
    });
  }

  /** Runs the turn into `writer`; an error before the first byte is thrown (answered as JSON), after it becomes the `error` write. */
  async run(tenantId: TenantId, dto: ChatRequestDto, sse: SseResponse, requestId: string, writer: ChatStreamWriter): Promise<void> {
    try {
      const response = await this.chat.executeChat(tenantId, dto, {
        signal: sse.signal,
        route: writer.route,
        lookup: writer.lookup,
        ...(writer.started ? { started: writer.started } : {}),
        ...(writer.history ? { history: writer.history } : {}),
      });
      for (const piece of sentencePieces(response.reply)) writer.delta(piece);
      writer.done(response);
    } catch (error) {
      if (!sse.started) throw error;
      const body = toErrorBody(error, requestId);
      if (body.statusCode >= 500)
        this.logger.error({ msg: 'streamed chat turn failed', requestId, err: error instanceof Error ? error.message : String(error) });
      writer.error(body);
    } finally {
      sse.end();
    }
  }
}
