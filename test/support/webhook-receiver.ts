import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  headers: http.IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

/** What the receiver answers to the next request: a status after an optional delay, or never (`hang`). */
export type ReceiverReply = { status: number; delayMs?: number } | 'hang';

/**
 * A local webhook receiver for the e2e tests (docs/webhooks.md): records every POST and answers as `reply` says
 * (default 200). Listens on 127.0.0.1, which the tests name in WEBHOOK_ALLOWED_HOSTS.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  reply: (index: number) => ReceiverReply = () => ({ status: 200 });
  private readonly server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const index = this.received.length;
      this.received.push({ headers: req.headers, body, receivedAt: Date.now() });
      for (const waiter of this.waiters.splice(0)) waiter();
      const answer = this.reply(index);
      if (answer === 'hang') return;
      setTimeout(() => res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.status < 300 ? 'ok' : 'receiver failed'), answer.delayMs ?? 0);
    });
  });
  private waiters: (() => void)[] = [];

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  /** Resolves once `count` requests arrived (rejects after `timeoutMs`). */
  async waitFor(count: number, timeoutMs = 20_000): Promise<ReceivedWebhook[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < count) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`expected ${count} webhook requests, got ${this.received.length} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.received.slice(0, count);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
