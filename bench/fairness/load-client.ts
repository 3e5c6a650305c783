/**
 * Load generator of `bench:fairness`, in its own process so that it does not share the API's event
 * loop: tenant B's `GET /api/sessions/:id` at SESSION_RPS and `POST /ai/chat` at CHAT_RPS, open loop
 * (each request is sent on its schedule, whether or not the previous one answered; its latency counts
 * from that schedule, so a stalled server shows in full). It runs phases on command from the parent
 * (`{type: 'phase', name}` over IPC) and reports each phase's latencies when told to stop it
 * (`{type: 'stop'}` → `{type: 'result', name, sessions, chat}`).
 */
import { performance } from 'node:perf_hooks';
import { assertNever } from '@arbiter/common';

const base = process.env.TARGET_URL as string;
const key = process.env.CLIENT_KEY as string;
const sessionIds = JSON.parse(process.env.SESSION_IDS as string) as string[];
const messages = JSON.parse(process.env.CHAT_MESSAGES as string) as string[];
const sessionRps = Number(process.env.SESSION_RPS ?? 20);
const chatRps = Number(process.env.CHAT_RPS ?? 2);

export interface RouteStats {
  requests: number;
  errors: number;
  statuses: Record<string, number>;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

function percentile(sorted: readonly number[], p: number): number {
  if (!sorted.length) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

class Route {
  private readonly latencies: number[] = [];
  private readonly statuses: Record<string, number> = {};
  private errors = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly rps: number,
    private readonly fire: (i: number) => Promise<number>,
  ) {}

  start(): void {
    const interval = 1000 / this.rps;
    let i = 0;
    let due = performance.now();
    const tick = () => {
      const now = performance.now();
      while (due <= now) {
        const scheduled = due;
        const p = this.fire(i++).then(
          (status) => {
            this.latencies.push(performance.now() - scheduled);
            this.statuses[status] = (this.statuses[status] ?? 0) + 1;
            if (status >= 400) this.errors++;
          },
          () => {
            this.latencies.push(performance.now() - scheduled);
            this.errors++;
          },
        );
        this.inFlight.add(p);
        void p.finally(() => this.inFlight.delete(p));
        due += interval;
      }
      this.timer = setTimeout(tick, Math.max(0, due - performance.now()));
    };
    tick();
  }

  async stop(): Promise<RouteStats> {
    clearTimeout(this.timer);
    await Promise.all([...this.inFlight]);
    const sorted = [...this.latencies].sort((a, b) => a - b);
    const r = (n: number) => Math.round(n * 10) / 10;
    return {
      requests: sorted.length,
      errors: this.errors,
      statuses: this.statuses,
      p50: r(percentile(sorted, 50)),
      p95: r(percentile(sorted, 95)),
      p99: r(percentile(sorted, 99)),
      max: r(sorted.at(-1) ?? Number.NaN),
    };
  }
}

async function call(method: string, url: string, body?: unknown): Promise<number> {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  await res.arrayBuffer();
  return res.status;
}

let phase: { name: string; sessions: Route; chat: Route } | undefined;

process.on('message', (message: { type: 'phase'; name: string } | { type: 'stop' } | { type: 'exit' }) => {
  switch (message.type) {
    case 'phase': {
      const sessions = new Route(sessionRps, (i) => call('GET', `/api/sessions/${sessionIds[i % sessionIds.length]}`));
      const chat = new Route(chatRps, (i) => call('POST', '/ai/chat', { message: messages[i % messages.length] }));
      phase = { name: message.name, sessions, chat };
      sessions.start();
      chat.start();
      process.send!({ type: 'started', name: message.name });
      return;
    }
    case 'stop': {
      const current = phase;
      if (!current) return;
      phase = undefined;
      void Promise.all([current.sessions.stop(), current.chat.stop()]).then(([sessions, chat]) =>
        process.send!({ type: 'result', name: current.name, sessions, chat }),
      );
      return;
    }
    case 'exit':
      process.disconnect();
      return;
    default:
      assertNever(message);
  }
});
process.send!({ type: 'ready' });
