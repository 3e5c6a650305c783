import { randomUUID } from 'node:crypto';
import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { FAST_LATENCY_BUCKETS, MetricsService } from '@arbiter/common';
import { IntentDecisionHooks, type RoutingDecisionEvent } from '@arbiter/intent';
import { DecisionLogBuffer, DEFAULT_DECISION_LOG_BUFFER_POLICY, type DecisionLogDropReason } from './decision-log-buffer.js';
import { DecisionLogRepository, type DecisionLogRow } from './decision-log.repository.js';

/**
 * Records every routing decision (docs/decision-log.md "Decision log"): a listener on the intent lib's
 * `IntentDecisionHooks` turns the decision into a row and pushes it into an in-process buffer — synchronous,
 * no I/O on the request path; the buffer writes batches with one multi-row INSERT every ~100 ms (or at once
 * when 500 rows wait), keeps at most 20,000 rows (then drops the oldest, counted in
 * `arbiter_decision_log_dropped_total{reason="full"}`), and is flushed when the app shuts down (before the
 * database closes). A crash loses what waits: about one flush window.
 */
@Injectable()
export class DecisionLogWriter implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('DecisionLog');
  private readonly buffer: DecisionLogBuffer<DecisionLogRow>;
  private readonly written;
  private readonly dropped;
  private readonly flushSeconds;
  private readonly counts = { written: 0, dropped: 0 };
  /** Off: decisions are not recorded (the route benchmark's same-run comparison; not an API). */
  enabled = true;

  constructor(
    private readonly hooks: IntentDecisionHooks,
    repository: DecisionLogRepository,
    metrics: MetricsService,
  ) {
    this.written = metrics.counter('arbiter_decision_log_written_total', 'Routing decisions written to the decision log');
    this.dropped = metrics.counter('arbiter_decision_log_dropped_total', 'Routing decisions not logged, by reason (full|failed|closed)', ['reason']);
    this.flushSeconds = metrics.histogram('arbiter_decision_log_flush_seconds', 'Duration of one decision-log batch INSERT', [], FAST_LATENCY_BUCKETS);
    this.buffer = new DecisionLogBuffer<DecisionLogRow>((rows) => repository.insertBatch(rows), DEFAULT_DECISION_LOG_BUFFER_POLICY, {
      onFlush: (rows, ms) => {
        this.counts.written += rows;
        this.written.inc(rows);
        this.flushSeconds.observe(ms / 1000);
      },
      onDrop: (reason: DecisionLogDropReason, rows) => {
        this.counts.dropped += rows;
        this.dropped.inc({ reason }, rows);
        if (reason !== 'full') this.logger.warn({ msg: 'decision log rows dropped', reason, rows });
      },
      onError: (error, rows) => {
        this.logger.warn({ msg: 'decision log flush failed; will retry', rows, err: error instanceof Error ? error.message : String(error) });
      },
    });
  }

  onModuleInit(): void {
    this.hooks.onDecision('decision-log', (event) => this.record(event));
  }

  /** Flushes what waits while the database is still open (the database closes in a later shutdown phase). */
  async onModuleDestroy(): Promise<void> {
    await this.buffer.close();
  }

  /** Rows written and dropped since start (benchmarks, tests). */
  get stats(): { written: number; dropped: number; waiting: number } {
    return { ...this.counts, waiting: this.buffer.size };
  }

  /** Writes what waits now (tests; the buffer flushes on its own every ~100 ms). */
  flush(): Promise<void> {
    return this.buffer.drain();
  }

  private record(event: RoutingDecisionEvent): void {
    if (!this.enabled) return;
    const r = event.result;
    this.buffer.push({
      tenantId: event.tenantId,
      id: randomUUID(),
      createdAt: event.decidedAt,
      source: event.source,
      sessionId: event.sessionId,
      message: event.message,
      configVersion: event.versions.config,
      rulesVersion: event.versions.rules,
      intent: r.finalIntent,
      reason: r.decisionReason,
      needClarify: r.needClarify,
      confidence: r.finalConfidence,
      // Serialised at flush time, off the request: the router builds new objects per request and nobody mutates them afterwards.
      candidates: r.candidates,
      trace: r.routeTrace,
      latencyMs: event.latencyMs,
    });
  }
}
