import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { SystemMessage, HumanMessage } from '@langchain/core/messages';
import { MetricsService, type TenantId } from '@arbiter/common';
import type { Db } from '@arbiter/database';
import { JOB_CATALOG, JobsService, type JobContext, type JobName } from '@arbiter/jobs';
import { LlmErrorCode, LlmException, LlmService } from '@arbiter/llm';
import { runFailed, SessionHooks, SessionsService, type DiagnosisSessionEntity, type FinishPlan, type SelfEvaluation } from '@arbiter/sessions';
import { AuditLog } from '@arbiter/tenancy';
import { EvaluationErrorCode, EvaluationException } from './evaluation.exception.js';
import { EvaluationRepository } from './evaluation.repository.js';
import { buildEvaluationPrompt, parseLlmEvaluation } from './llm-evaluator.js';
import { ruleEvaluation, type FallbackReason } from './rule-evaluator.js';

/** The stored self-evaluation; rule results also say why the LLM track was not used. */
export type StoredSelfEvaluation = SelfEvaluation & { fallbackReason?: FallbackReason };

type LlmAttempt = { ok: true; evaluation: StoredSelfEvaluation } | { ok: false; reason: FallbackReason; detail?: string };

export const SELF_EVALUATE_JOB = 'evaluation.self-evaluate' satisfies JobName;
export const RETRY_FALLBACKS_JOB = 'evaluation.retry-fallbacks' satisfies JobName;
const SELF_EVALUATE_ATTEMPTS = JOB_CATALOG[SELF_EVALUATE_JOB].maxAttempts;

export interface RetryFallbacksResult {
  attempted: number;
  upgraded: number;
  stillFallback: number;
  skipped?: 'llm_disabled';
}

/**
 * Self-evaluation of finished sessions (docs/spec/evaluation.md §1, §3). No LLM: the rule result is stored
 * inside the finished-session hook, i.e. before the ingest response. With an LLM: a durable job
 * (`evaluation.self-evaluate`, retried with backoff) makes the LLM call off the request path; a failed
 * attempt stores the rule fallback at once (and the reason), a later success replaces it.
 */
@Injectable()
export class EvaluationService implements OnModuleInit {
  private readonly logger = new Logger('EvaluationService');
  private readonly evaluations;

  constructor(
    private readonly llm: LlmService,
    private readonly sessions: SessionsService,
    private readonly hooks: SessionHooks,
    private readonly jobs: JobsService,
    private readonly repository: EvaluationRepository,
    metrics: MetricsService,
    private readonly audit: AuditLog,
  ) {
    this.evaluations = metrics.counter('arbiter_self_evaluations_total', 'Stored self-evaluations by source and reason (llm or the fallback reason)', [
      'source',
      'reason',
    ]);
  }

  onModuleInit(): void {
    this.hooks.onFinished(
      'evaluation',
      (tenantId, session) => this.onSessionFinished(tenantId, session),
      (_tenantId, session) => this.planSessionFinished(session),
    );
  }

  /** Finished-session hook: the rule result now (no LLM), or a durable LLM job. */
  async onSessionFinished(tenantId: TenantId, session: DiagnosisSessionEntity): Promise<void> {
    if (!this.llm.enabled) {
      await this.store(tenantId, session.id, this.ruleResult(session, 'llm_disabled'));
      return;
    }
    const ruleOnly = this.ruleOnlyReason(session);
    if (ruleOnly !== null) {
      await this.store(tenantId, session.id, this.ruleResult(session, ruleOnly));
      return;
    }
    try {
      await this.jobs.enqueue(tenantId, SELF_EVALUATE_JOB, { sessionId: session.id }, { trigger: 'event' });
    } catch (error) {
      // The queue is unavailable: keep a rule result rather than nothing; the retry job upgrades it later.
      this.logger.warn({ msg: 'could not queue the LLM self-evaluation', sessionId: session.id, err: (error as Error).message });
      await this.store(tenantId, session.id, this.ruleResult(session, 'llm_error', 'the evaluation job could not be queued'));
    }
  }

  /**
   * The same as `onSessionFinished`, planned into the session's finish statement (docs/hot-paths.md
   * "Chat turn"): the rule result is a column of the finish UPDATE. The LLM track declines (null): its
   * job is queued by the handler.
   */
  planSessionFinished(session: DiagnosisSessionEntity): FinishPlan | null {
    const reason: FallbackReason | null = !this.llm.enabled ? 'llm_disabled' : this.ruleOnlyReason(session);
    if (reason === null) return null;
    const evaluation = this.ruleResult(session, reason);
    return { session: { selfEvaluation: evaluation }, done: () => this.count(evaluation) };
  }

  /** POST /admin/sessions/:id/evaluate: evaluates now (LLM inline when configured, else rules) and stores it. */
  async evaluateNow(tenantId: TenantId, sessionId: string): Promise<StoredSelfEvaluation> {
    const session = await this.sessions.get(tenantId, sessionId);
    if (session.status === 'PENDING' || session.status === 'RUNNING') throw new EvaluationException(EvaluationErrorCode.SessionNotFinished, session.status);
    const evaluation = await this.evaluate(tenantId, session);
    const before = session.selfEvaluation as Partial<StoredSelfEvaluation> | null;
    await this.store(tenantId, session.id, evaluation, (tx) =>
      this.audit.record(tx, tenantId, {
        action: 'evaluate',
        resourceType: 'self_evaluation',
        resourceId: session.id,
        label: session.query,
        summary: {
          before: before ? { source: before.source ?? null, confidence: before.confidence ?? null } : null,
          after: { source: evaluation.source, confidence: evaluation.confidence },
        },
      }),
    );
    return evaluation;
  }

  /** Computes (does not store) the self-evaluation: the LLM track when possible, else the rule track. */
  async evaluate(tenantId: TenantId, session: DiagnosisSessionEntity): Promise<StoredSelfEvaluation> {
    if (!this.llm.enabled) return this.ruleResult(session, 'llm_disabled');
    const ruleOnly = this.ruleOnlyReason(session);
    if (ruleOnly !== null) return this.ruleResult(session, ruleOnly);
    const attempt = await this.tryLlm(tenantId, session);
    return attempt.ok ? attempt.evaluation : this.ruleResult(session, attempt.reason, attempt.detail);
  }

  /**
   * Re-runs the LLM track for rule fallbacks whose LLM call failed (timeout, bad output, error),
   * oldest first; stops early after 3 consecutive failures (the LLM is still down).
   */
  async retryRuleFallbacks(
    tenantId: TenantId,
    options: { limit?: number; onProgress?: (r: RetryFallbacksResult) => Promise<void> } = {},
  ): Promise<RetryFallbacksResult> {
    const result: RetryFallbacksResult = { attempted: 0, upgraded: 0, stillFallback: 0 };
    if (!this.llm.enabled) return { ...result, skipped: 'llm_disabled' };
    const limit = options.limit ?? 200;
    let consecutiveFailures = 0;
    let after: string | undefined;
    while (result.attempted < limit && consecutiveFailures < 3) {
      const batch = await this.repository.findRetryableFallbacks(tenantId, Math.min(50, limit - result.attempted), after);
      if (!batch.length) break;
      for (const { id, createdAt } of batch) {
        after = createdAt;
        const session = await this.sessions.get(tenantId, id).catch(() => null);
        if (!session) continue;
        result.attempted++;
        const attempt = await this.tryLlm(tenantId, session);
        if (attempt.ok) {
          await this.store(tenantId, id, attempt.evaluation);
          result.upgraded++;
          consecutiveFailures = 0;
        } else {
          result.stillFallback++;
          if (++consecutiveFailures >= 3) break;
        }
        if (result.attempted >= limit) break;
      }
      await options.onProgress?.({ ...result });
    }
    return result;
  }

  /** The `evaluation.self-evaluate` job: the LLM track for one session; throws to retry while attempts remain. */
  async runSelfEvaluationJob(ctx: JobContext<{ sessionId: string }>): Promise<void> {
    const session = await this.sessions.get(ctx.tenantId, ctx.payload.sessionId).catch(() => null);
    if (!session) return; // deleted meanwhile: nothing to evaluate
    const ruleOnly = this.ruleOnlyReason(session);
    if (ruleOnly !== null) {
      await this.store(ctx.tenantId, session.id, this.ruleResult(session, ruleOnly));
      return;
    }
    const attempt = await this.tryLlm(ctx.tenantId, session);
    if (attempt.ok) {
      await this.store(ctx.tenantId, session.id, attempt.evaluation);
      return;
    }
    // Keep a usable (rule) evaluation while retrying; a later success replaces it.
    await this.store(ctx.tenantId, session.id, this.ruleResult(session, attempt.reason, attempt.detail));
    if (ctx.attempt < SELF_EVALUATE_ATTEMPTS)
      throw new Error(`LLM self-evaluation failed (${attempt.reason}${attempt.detail ? `: ${attempt.detail}` : ''}); retrying`);
  }

  /** The `evaluation.retry-fallbacks` job. */
  async runRetryFallbacksJob(ctx: JobContext<Record<string, never>>): Promise<void> {
    let reported = { attempted: 0, stillFallback: 0 };
    await this.retryRuleFallbacks(ctx.tenantId, {
      onProgress: async (r) => {
        await ctx.progress({ processed: r.attempted - reported.attempted, failed: r.stillFallback - reported.stillFallback, details: { ...r } });
        reported = { attempted: r.attempted, stillFallback: r.stillFallback };
      },
    });
  }

  private async tryLlm(tenantId: TenantId, session: DiagnosisSessionEntity): Promise<LlmAttempt> {
    const invocations = await this.sessions.listToolInvocations(tenantId, session.id);
    const prompt = buildEvaluationPrompt({
      query: session.query,
      answer: session.answer,
      status: session.status,
      intent: session.intent,
      stepCount: session.stepCount,
      toolCallCount: session.toolCallCount,
      knowledgeSearched: session.knowledgeSearched,
      references: session.references,
      toolInvocations: invocations.map((t) => ({ toolName: t.toolName, status: t.status, relevanceLevel: t.relevanceLevel, resultSummary: t.resultSummary })),
    });
    try {
      const reply = await this.llm.invoke([new SystemMessage(prompt.system), new HumanMessage(prompt.user)], { purpose: 'self_evaluation' });
      const parsed = parseLlmEvaluation(reply.content);
      if (!parsed.ok) return { ok: false, reason: 'llm_invalid_output', detail: parsed.problem };
      return {
        ok: true,
        evaluation: { confidence: parsed.confidence, reasoning: parsed.reasoning, source: 'llm', evaluatedAt: new Date().toISOString(), model: reply.model },
      };
    } catch (error) {
      if (error instanceof LlmException) {
        if (error.code === LlmErrorCode.LLM_TIMEOUT) return { ok: false, reason: 'llm_timeout', detail: `no answer within ${this.llm.timeoutMs} ms` };
        return { ok: false, reason: 'llm_error', detail: error.message.slice(0, 200) };
      }
      return { ok: false, reason: 'llm_error', detail: (error as Error)?.message?.slice(0, 200) };
    }
  }

  /**
   * Sessions the LLM never assesses: a failed run (docs/spec/evaluation.md §1: FAILED → 0, evaluated after SUCCESS only —
   * also once feedback made it BAD_CASE) and a run without an answer.
   */
  private ruleOnlyReason(session: DiagnosisSessionEntity): FallbackReason | null {
    if (runFailed(session)) return 'run_failed';
    if (!session.answer || session.answer.trim() === '') return 'no_answer';
    return null;
  }

  private ruleResult(session: DiagnosisSessionEntity, reason: FallbackReason, detail?: string): StoredSelfEvaluation {
    const rule = ruleEvaluation({ failed: runFailed(session), stepCount: session.stepCount, toolCallCount: session.toolCallCount }, reason, detail);
    return { confidence: rule.confidence, reasoning: rule.reasoning, source: 'rule', evaluatedAt: new Date().toISOString(), fallbackReason: reason };
  }

  private async store(tenantId: TenantId, sessionId: string, evaluation: StoredSelfEvaluation, record?: (tx: Db) => Promise<void>): Promise<void> {
    await this.sessions.update(tenantId, sessionId, { selfEvaluation: evaluation }, record);
    this.count(evaluation);
  }

  private count(evaluation: StoredSelfEvaluation): void {
    this.evaluations.inc({ source: evaluation.source, reason: evaluation.source === 'llm' ? 'llm' : (evaluation.fallbackReason ?? 'unknown') });
  }
}
