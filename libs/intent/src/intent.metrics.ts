import { Injectable } from '@nestjs/common';
import { FAST_LATENCY_BUCKETS, MetricsService } from '@arbiter/common';
import type { RouteResult } from './routing/index.js';

export type JudgeOutcomeLabel = 'ok' | 'error' | 'timeout' | 'skipped';

/** Prometheus metrics of intent routing (bounded labels only: path, reason, outcome). */
@Injectable()
export class IntentMetrics {
  private readonly duration;
  private readonly decisions;
  private readonly judgeCalls;
  private readonly judgeTokens;
  private readonly semanticSkipped;
  private readonly cacheLoads;
  private readonly trainings;
  private readonly trainingDuration;

  constructor(metrics: MetricsService) {
    this.duration = metrics.histogram(
      'arbiter_intent_route_duration_seconds',
      'Intent routing latency per path (rule|semantic|llm|total)',
      ['path'],
      FAST_LATENCY_BUCKETS,
    );
    this.decisions = metrics.counter('arbiter_intent_decisions_total', 'Intent routing decisions by decision reason', ['reason']);
    this.judgeCalls = metrics.counter('arbiter_intent_judge_calls_total', 'LLM judge invocations by outcome (ok|error|timeout|skipped)', ['outcome']);
    this.judgeTokens = metrics.counter('arbiter_intent_judge_tokens_total', 'Tokens used by the LLM judge');
    this.semanticSkipped = metrics.counter('arbiter_intent_semantic_skipped_total', 'Semantic path skipped, by reason', ['reason']);
    this.cacheLoads = metrics.counter('arbiter_intent_router_loads_total', 'Compiled router (re)loads by cause (miss|rules|config)', ['cause']);
    this.trainings = metrics.counter(
      'arbiter_intent_classifier_trainings_total',
      'Tenant classifier trainings (worker thread) by outcome (trained|superseded|cancelled|failed|timeout)',
      ['outcome'],
    );
    this.trainingDuration = metrics.histogram(
      'arbiter_intent_classifier_training_seconds',
      'From a compiled router handing its examples to the training queue to its trained classifier serving',
      [],
      [0.25, 0.5, 1, 2, 5, 10, 30, 60],
    );
  }

  observe(result: RouteResult, totalMs: number): void {
    const t = result.routeTrace;
    this.duration.observe({ path: 'total' }, totalMs / 1000);
    // The trace carries the rule path's duration for hits only.
    if (t.ruleMatch !== null) this.duration.observe({ path: 'rule' }, t.ruleMatch.durationMs / 1000);
    if (t.semanticMatch.skipped === undefined) this.duration.observe({ path: 'semantic' }, t.semanticMatch.durationMs / 1000);
    else this.semanticSkipped.inc({ reason: t.semanticMatch.skipped });
    this.decisions.inc({ reason: result.decisionReason });
    const j = t.llmJudge;
    if (!j.triggered) return;
    if (j.skipped !== undefined) {
      this.judgeCalls.inc({ outcome: 'skipped' });
      return;
    }
    if (j.durationMs !== undefined) this.duration.observe({ path: 'llm' }, j.durationMs / 1000);
    if (j.error !== undefined) this.judgeCalls.inc({ outcome: /timeout|timed out|no answer within/i.test(j.error) ? 'timeout' : 'error' });
    else this.judgeCalls.inc({ outcome: 'ok' });
    if (j.tokens !== undefined) this.judgeTokens.inc(j.tokens);
  }

  routerLoaded(cause: 'miss' | 'rules' | 'config'): void {
    this.cacheLoads.inc({ cause });
  }

  classifierTraining(outcome: 'trained' | 'superseded' | 'cancelled' | 'failed' | 'timeout', seconds?: number): void {
    this.trainings.inc({ outcome });
    if (seconds !== undefined) this.trainingDuration.observe(seconds);
  }
}
