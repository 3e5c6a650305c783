import { Injectable, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { toErrorBody, type TenantId } from '@arbiter/common';
import { AppConfig } from '@arbiter/config';
import { SseResponse } from './chat-sse.js';
import { AnswerRelay, sseEvent, type ChatDelta, type ChatTurnObserver } from './chat-stream.js';
import { ChatService, type ChatResponse } from './chat.service.js';
import type { ChatRequestDto } from './dto/chat.dto.js';

/** What a streamed turn writes: the turn's progress, the reply in deltas, then its end. */
export interface ChatStreamWriter extends Pick<ChatTurnObserver, 'started' | 'history'> {
  route: NonNullable<ChatTurnObserver['route']>;
  lookup: NonNullable<ChatTurnObserver['lookup']>;
  delta(delta: ChatDelta): void;
  /** The turn's body (after the deltas: they add up to its reply). */
  done(response: ChatResponse): void;
  error(body: ReturnType<typeof toErrorBody>): void;
}

/**
 * A chat turn as server-sent events (docs/chat-clients.md "Streaming"): the same turn as `POST /ai/chat`
 * (ChatService), observed. `delta` carries the reply — the model's tokens as they come when the confidence
 * policy keeps its answer, else the final reply in sentence pieces (chat-stream.ts `AnswerRelay`) —, `done`
 * the non-streaming body. A client that disconnects aborts the turn and its model call (session FAILED
 * `client_disconnected`).
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
      delta: (d) => sse.write(sseEvent('delta', d)),
      done: (response) => sse.write(sseEvent('done', response)),
      error: (body) => sse.write(sseEvent('error', body)),
    });
  }

  /** Runs the turn into `writer`; an error before the first byte is thrown (answered as JSON), after it becomes the `error` write. */
  async run(tenantId: TenantId, dto: ChatRequestDto, sse: SseResponse, requestId: string, writer: ChatStreamWriter): Promise<void> {
    const relay = new AnswerRelay((d) => writer.delta(d));
    try {
      const response = await this.chat.executeChat(tenantId, dto, {
        signal: sse.signal,
        route: writer.route,
        lookup: writer.lookup,
        token: (step, text, preamble) => relay.token(step, text, preamble),
        // The reply goes out before the finish statement commits; if the turn then fails, `finish` below replaces it.
        answered: (reply) => relay.finish(reply),
        ...(writer.started ? { started: writer.started } : {}),
        ...(writer.history ? { history: writer.history } : {}),
      });
      relay.finish(response.reply);
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
