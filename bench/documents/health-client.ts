/**
 * Load generator of `bench:documents -- --health`, in its own process so that it never shares the API's
 * event loop: `GET /health` at HEALTH_RPS, open loop (each request is sent on its schedule whether or not the
 * previous one answered, and its latency counts from that schedule, so a stalled server shows in full).
 * `{type: 'phase', name}` starts a phase, `{type: 'stop'}` ends it and answers `{type: 'result', name, stats}`.
 */
import { performance } from 'node:perf_hooks';
import { assertNever } from '@arbiter/common';
import { latencyStats, type LatencyStats } from './scoring.js';

const base = process.env.TARGET_URL as string;
const rps = Number(process.env.HEALTH_RPS ?? 20);

class Phase {
  private readonly latencies: number[] = [];
  private readonly statuses: Record<string, number> = {};
  private errors = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly inFlight = new Set<Promise<void>>();

  start(): void {
    const interval = 1000 / rps;
    let due = performance.now();
    const tick = () => {
      const now = performance.now();
      while (due <= now) {
        const scheduled = due;
        const p = fetch(`${base}/health`).then(
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
      void ending.phase.stop().then((stats) => process.send!({ type: 'result', name: ending.name, stats }));
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
