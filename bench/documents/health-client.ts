/**
 * Load generator of `bench:documents -- --health`, in its own process so that it never shares the API's
 * event loop: `GET /health` at HEALTH_RPS and, when LOOKUP_KEY is set, `POST /ai/knowledge/lookup` of another
 * tenant at LOOKUP_RPS (what a chat client of a neighbour sees while the file imports), both open loop (each request
 * is sent on its schedule whether or not the previous one answered, and its latency counts from that schedule, so a
 * stalled server shows in full). `{type: 'phase', name}` starts a phase, `{type: 'stop'}` ends it and answers
 * `{type: 'result', name, stats, lookup}` (`lookup` null without LOOKUP_KEY).
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { assertNever } from '@arbiter/common';
import { latencyStats, type LatencyStats } from './scoring.js';

const base = process.env.TARGET_URL as string;
const rps = Number(process.env.HEALTH_RPS ?? 20);
const lookupKey = process.env.LOOKUP_KEY;
const lookupRps = Number(process.env.LOOKUP_RPS ?? 2);
/** The lookup the neighbour sends (its knowledge base is a few documents, bench/documents/documents.bench.ts). */
const NEIGHBOUR_QUERY = 'How do I reset the emergency stop?';

/** One open-loop stream of requests at `perSecond`. */
class Stream {
  private readonly latencies: number[] = [];
  private readonly statuses: Record<string, number> = {};
  private errors = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly perSecond: number,
    private readonly send: () => Promise<Response>,
  ) {}

  start(): void {
    const interval = 1000 / this.perSecond;
    let due = performance.now();
    const tick = () => {
      const now = performance.now();
      while (due <= now) {
        const scheduled = due;
        const p = this.send().then(
          async (res) => {
            await res.arrayBuffer();
            this.latencies.push(performance.now() - scheduled);
            this.statuses[res.status] = (this.statuses[res.status] ?? 0) + 1;
            if (res.status >= 400) this.errors++;
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

  async stop(): Promise<LatencyStats> {
    clearTimeout(this.timer);
    await Promise.all([...this.inFlight]);
    return latencyStats(this.latencies, this.statuses, this.errors);
  }
}

class Phase {
  private readonly health = new Stream(rps, () => fetch(`${base}/health`));
  private readonly lookup = lookupKey
    ? new Stream(lookupRps, () =>
        fetch(`${base}/ai/knowledge/lookup`, {
          method: 'POST',
          headers: { 'x-api-key': lookupKey, 'content-type': 'application/json' },
          body: JSON.stringify({ sessionId: `neighbour-${randomUUID()}`, query: NEIGHBOUR_QUERY, topK: 3 }),
        }),
      )
    : null;

  start(): void {
    this.health.start();
    this.lookup?.start();
  }

  async stop(): Promise<{ stats: LatencyStats; lookup: LatencyStats | null }> {
    const [stats, lookup] = await Promise.all([this.health.stop(), this.lookup?.stop() ?? null]);
    return { stats, lookup };
  }
}

let current: { name: string; phase: Phase } | undefined;

process.on('message', (message: { type: 'phase'; name: string } | { type: 'stop' } | { type: 'exit' }) => {
  switch (message.type) {
    case 'phase': {
      current = { name: message.name, phase: new Phase() };
      current.phase.start();
      process.send!({ type: 'started', name: message.name });
      return;
    }
    case 'stop': {
      const ending = current;
      if (!ending) return;
      current = undefined;
      void ending.phase.stop().then((result) => process.send!({ type: 'result', name: ending.name, ...result }));
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
