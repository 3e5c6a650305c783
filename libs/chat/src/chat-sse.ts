import type { FastifyReply } from 'fastify';
import { SSE_HEARTBEAT } from './chat-stream.js';

/**
 * A server-sent event response on Fastify's raw socket (docs/chat-clients.md "Streaming"). The stream opens
 * at the first write, so an error before it (a conversation of another tenant, the database) still
 * answers as JSON through the error filter. Opening hijacks the reply and carries over the headers the
 * onRequest hooks set (request id, CORS). A heartbeat comment goes out after `heartbeatMs` without a
 * write; `signal` fires when the client goes away before the end.
 */
export class SseResponse {
  private opened = false;
  private ended = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly disconnect = new AbortController();
  readonly signal = this.disconnect.signal;

  constructor(
    private readonly reply: FastifyReply,
    private readonly heartbeatMs: number,
  ) {
    reply.raw.on('close', () => {
      if (this.ended) return;
      this.ended = true;
      clearTimeout(this.timer);
      this.disconnect.abort();
    });
    this.arm();
  }

  /** The first byte went out: errors must now travel as events. */
  get started(): boolean {
    return this.opened;
  }

  write(chunk: string): void {
    if (this.ended) return;
    this.open();
    this.reply.raw.write(chunk);
    this.arm();
  }

  end(): void {
    clearTimeout(this.timer);
    if (this.ended) return;
    this.ended = true;
    if (this.opened) this.reply.raw.end();
  }

  private open(): void {
    if (this.opened) return;
    this.opened = true;
    this.reply.hijack();
    const carried: Record<string, string | number | string[]> = {};
    for (const [name, value] of Object.entries(this.reply.getHeaders())) if (value !== undefined) carried[name] = value;
    this.reply.raw.writeHead(200, {
      ...carried,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
  }

  private arm(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.write(SSE_HEARTBEAT), this.heartbeatMs);
    this.timer.unref();
  }
}
