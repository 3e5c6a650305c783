import { Inject, Injectable, Optional } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { BackgroundGate } from './background-gate.js';
import { DATABASE_HEALTH_OPTIONS } from './database.tokens.js';

/** What `/health` reports about the database. */
export type DatabaseStatus =
  | { status: 'up'; latencyMs: number }
  /**
   * Requests queue: the probe is queued behind a running statement (the embedded database runs one at a
   * time), or requests wait for a pool connection, or a request's statement has been in flight for
   * `queuedAfterMs` (`queued`: requests waiting for a connection).
   */
  | { status: 'busy'; waitingMs: number; queued?: number }
  | { status: 'down'; reason: string };

export interface DatabaseHealthOptions {
  /** How long after a probe starts `check()` stops waiting for it and answers from its state. */
  answerWithinMs: number;
  /** A probe unanswered for this long means the database is down, not busy. */
  busyLimitMs: number;
  /** A request statement in flight this long means requests queue: `busy` even when the probe answered in time. */
  queuedAfterMs?: number;
}

export const DEFAULT_HEALTH_OPTIONS: DatabaseHealthOptions = { answerWithinMs: 50, busyLimitMs: 30_000, queuedAfterMs: 100 };

interface Probe {
  startedAt: number;
  done: Promise<void>;
  result?: DatabaseStatus;
}

/**
 * Database liveness for `/health`, answered within ~50 ms whatever the database is doing. One
 * `SELECT 1` probe at a time: callers wait for it until it is `answerWithinMs` old; if it is still queued
 * (a long statement holds the embedded database) the answer is `busy` until the probe has waited
 * `busyLimitMs`, then `down`. A refused or failing connection is `down` at once. Health polls never
 * pile up queries behind a slow statement: they share the probe in flight. A probe that answered in time is
 * still `busy` when requests queue (issue 29: `/health` said `ok` while another route answered 503 for want of
 * a connection): requests wait for a pool connection, or a request statement has been in flight for
 * `queuedAfterMs` (BackgroundGate's view of the pool; docs/hot-paths.md "Imports: foreground first").
 */
@Injectable()
export class DatabaseHealth {
  private probe: Probe | undefined;

  constructor(
    private readonly dataSource: DataSource,
    @Optional() @Inject(DATABASE_HEALTH_OPTIONS) private readonly options: DatabaseHealthOptions = DEFAULT_HEALTH_OPTIONS,
    @Optional() private readonly gate?: BackgroundGate,
  ) {}

  async check(): Promise<DatabaseStatus> {
    const probe = this.currentProbe();
    // Wait only until the probe is `answerWithinMs` old: polls joining a queued probe answer at once.
    const remainingMs = this.options.answerWithinMs - (performance.now() - probe.startedAt);
    if (!probe.result && remainingMs > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([probe.done, new Promise((resolve) => (timer = setTimeout(resolve, remainingMs)))]);
      clearTimeout(timer);
    }
    if (probe.result) return probe.result.status === 'up' ? this.queueing(probe.result) : probe.result;
    const waitingMs = Math.round(performance.now() - probe.startedAt);
    if (waitingMs > this.options.busyLimitMs) return { status: 'down', reason: `no answer for ${waitingMs} ms` };
    return { status: 'busy', waitingMs };
  }

  /** `up`, unless requests queue for a connection or behind other work (see the class comment). */
  private queueing(up: DatabaseStatus): DatabaseStatus {
    const load = this.gate?.load();
    if (!load) return up;
    const queuedAfterMs = this.options.queuedAfterMs ?? DEFAULT_HEALTH_OPTIONS.queuedAfterMs!;
    if (load.waiting > 0 || load.oldestForegroundMs >= queuedAfterMs) return { status: 'busy', waitingMs: load.oldestForegroundMs, queued: load.waiting };
    return up;
  }

  /** The probe in flight, or a new one when the last has answered. */
  private currentProbe(): Probe {
    if (this.probe && !this.probe.result) return this.probe;
    const startedAt = performance.now();
    const probe: Probe = { startedAt, done: Promise.resolve() };
    probe.done = this.dataSource.query('SELECT 1').then(
      () => {
        probe.result = { status: 'up', latencyMs: Math.round((performance.now() - startedAt) * 100) / 100 };
      },
      (error: unknown) => {
        probe.result = { status: 'down', reason: error instanceof Error ? error.message : String(error) };
      },
    );
    this.probe = probe;
    return probe;
  }
}
