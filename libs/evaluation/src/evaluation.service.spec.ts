import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { asTenantId, MetricsService } from '@arbiter/common';
import { AppConfig, validateEnvironment } from '@arbiter/config';
import type { JobContext, JobsService } from '@arbiter/jobs';
import { LlmService } from '@arbiter/llm';
import { SessionHooks, type DiagnosisSessionEntity, type SessionsService } from '@arbiter/sessions';
import { FakeOpenAiServer } from '@arbiter/testing';
import type { EvaluationRepository } from './evaluation.repository.js';
import { RetryFallbacksJob } from './retry-fallbacks.job.js';
import { SelfEvaluateJob } from './self-evaluate.job.js';
import { EvaluationService, SELF_EVALUATE_JOB, type StoredSelfEvaluation } from './evaluation.service.js';
import { noAudit } from '../../../test/support/no-audit.js';

const tenantId = asTenantId('00000000-0000-4000-8000-000000000001');

function sessionRow(overrides: Partial<DiagnosisSessionEntity> = {}): DiagnosisSessionEntity {
  return {
    id: '11111111-1111-4111-8111-111111111111',
    tenantId,
    conversationId: '22222222-2222-4222-8222-222222222222',
    channel: 'web',
    userRef: null,
    query: '机械臂报警 E102 怎么办?',
    answer: '请检查伺服电机温度，参见《伺服报警手册》。',
    status: 'SUCCESS',
    outcome: 'SUCCESS',
    intent: 'fault_diagnosis',
    stepCount: 2,
    toolCallCount: 1,
    references: [{ title: '伺服报警手册', filePath: 'manuals/servo.md', score: 0.82 }],
    media: [],
    knowledgeSearched: true,
    selfEvaluation: null,
    feedback: null,
    routeTrace: null,
    error: null,
    latencyMs: null,
    createdAt: new Date(),
    updatedAt: new Date(),
    finishedAt: new Date(),
    hooksDone: true,
    idempotencyKey: null,
    requestHash: null,
    ...overrides,
  };
}

interface Harness {
  service: EvaluationService;
  stored: StoredSelfEvaluation[];
  enqueued: { name: string; payload: unknown }[];
  selfEvaluate: SelfEvaluateJob;
  retryFallbacks: RetryFallbacksJob;
  hooks: SessionHooks;
  sessions: Map<string, DiagnosisSessionEntity>;
  fallbackIds: string[];
}

function harness(env: Record<string, string>): Harness {
  const stored: StoredSelfEvaluation[] = [];
  const enqueued: { name: string; payload: unknown }[] = [];
  const sessions = new Map<string, DiagnosisSessionEntity>();
  const fallbackIds: string[] = [];
  const sessionsService = {
    get: async (_t: unknown, id: string) => {
      const s = sessions.get(id);
      if (!s) throw new Error('not found');
      return s;
    },
    listToolInvocations: async () => [
      { toolName: 'knowledge_lookup', status: 'SUCCESS', relevanceLevel: 'HIGHLY_RELEVANT', resultSummary: '1 result: 伺服报警手册' },
    ],
    update: async (_t: unknown, id: string, patch: { selfEvaluation: StoredSelfEvaluation }) => {
      stored.push(patch.selfEvaluation);
      const s = sessions.get(id);
      if (s) s.selfEvaluation = patch.selfEvaluation;
      return s;
    },
  } as unknown as SessionsService;
  const jobs = {
    enqueue: async (_t: unknown, name: string, payload: unknown) => {
      enqueued.push({ name, payload });
      return { id: 'run' };
    },
  } as unknown as JobsService;
  const repository = {
    findRetryableFallbacks: async (_t: unknown, limit: number, after?: string) => {
      const start = after ? fallbackIds.indexOf(after) + 1 : 0;
      return fallbackIds.slice(start, start + limit).map((id) => ({ id, createdAt: id }));
    },
  } as unknown as EvaluationRepository;
  const hooks = new SessionHooks();
  const llm = new LlmService(new AppConfig(validateEnvironment(env)));
  const service = new EvaluationService(llm, sessionsService, hooks, jobs, repository, new MetricsService(), noAudit());
  service.onModuleInit();
  return {
    service,
    stored,
    enqueued,
    selfEvaluate: new SelfEvaluateJob(service),
    retryFallbacks: new RetryFallbacksJob(service, llm),
    hooks,
    sessions,
    fallbackIds,
  };
}

function jobContext<P>(payload: P, attempt: number): JobContext<P> {
  return {
    runId: 'run',
    tenantId,
    payload,
    attempt,
    checkpoint: null,
    processed: 0,
    total: null,
    step: (work) => work(),
    progress: async () => undefined,
    setTotal: async () => undefined,
  };
}

describe('EvaluationService', () => {
  const fake = new FakeOpenAiServer();
  let baseUrl: string;
  beforeAll(async () => {
    baseUrl = await fake.start();
  });
  afterAll(async () => {
    await fake.stop();
  });
  beforeEach(() => {
    fake.reset();
  });
  const llmEnv = (): Record<string, string> => ({ LLM_PROVIDER: 'openai', LLM_BASE_URL: baseUrl, LLM_MODEL: 'judge-1', LLM_TIMEOUT_MS: '300' });

  describe('without an LLM', () => {
    it('stores the rule result inside the finished-session hook (before ingest returns)', async () => {
      const h = harness({});
      const s = sessionRow({ stepCount: 3, toolCallCount: 2 });
      h.sessions.set(s.id, s);
      await h.hooks.sessionFinished(tenantId, s);
      expect(h.stored).toHaveLength(1);
      expect(h.stored[0]).toMatchObject({ source: 'rule', confidence: 80, fallbackReason: 'llm_disabled' });
      expect(h.stored[0].reasoning).toMatch(/no LLM is configured/);
      expect(h.enqueued).toEqual([]);
      expect(h.retryFallbacks.isScheduled()).toBe(false);
    });

    it('scores FAILED runs 0 on re-evaluation', async () => {
      const h = harness({});
      const s = sessionRow({ status: 'FAILED', outcome: 'FAILED', answer: null });
      h.sessions.set(s.id, s);
      expect(await h.service.evaluateNow(tenantId, s.id)).toMatchObject({ source: 'rule', confidence: 0 });
    });

    it('a FAILED run marked not useful (BAD_CASE) is still scored as FAILED: 0, not 75', async () => {
      const h = harness({});
      const s = sessionRow({ status: 'BAD_CASE', outcome: 'FAILED', answer: '抱歉，处理您的问题时出现了异常。', stepCount: 1, toolCallCount: 1 });
      h.sessions.set(s.id, s);
      expect(await h.service.evaluateNow(tenantId, s.id)).toMatchObject({ source: 'rule', confidence: 0 });
      expect(h.stored[0]?.reasoning).toMatch(/status FAILED → 0/);
      // a BAD_CASE of a successful run keeps the rule score
      const ok = sessionRow({ id: 'ok', status: 'BAD_CASE', outcome: 'SUCCESS', stepCount: 1, toolCallCount: 1 });
      h.sessions.set(ok.id, ok);
      expect(await h.service.evaluateNow(tenantId, ok.id)).toMatchObject({ source: 'rule', confidence: 75 });
    });

    it('refuses to evaluate a running session (409)', async () => {
      const h = harness({});
      const s = sessionRow({ status: 'RUNNING' });
      h.sessions.set(s.id, s);
      await expect(h.service.evaluateNow(tenantId, s.id)).rejects.toMatchObject({ status: 409 });
      expect(h.stored).toEqual([]);
    });

    it('skips the fallback retry', async () => {
      expect(await harness({}).service.retryRuleFallbacks(tenantId)).toMatchObject({ skipped: 'llm_disabled', attempted: 0 });
    });
  });

  describe('with an LLM (real ChatOpenAI against the fake server)', () => {
    it('queues a durable job from the hook instead of calling the LLM inline', async () => {
      const h = harness(llmEnv());
      const s = sessionRow();
      await h.hooks.sessionFinished(tenantId, s);
      expect(h.enqueued).toEqual([{ name: SELF_EVALUATE_JOB, payload: { sessionId: s.id } }]);
      expect(h.stored).toEqual([]);
      expect(fake.chatRequests()).toHaveLength(0);
      expect(h.retryFallbacks.isScheduled()).toBe(true);
    });

    it('does not bother the LLM with a run that has no answer', async () => {
      const h = harness(llmEnv());
      await h.hooks.sessionFinished(tenantId, sessionRow({ answer: null, stepCount: 1, toolCallCount: 0 }));
      expect(h.stored[0]).toMatchObject({ source: 'rule', confidence: 70, fallbackReason: 'no_answer' });
      expect(h.enqueued).toEqual([]);
    });

    it.each([
      ['FAILED with an answer', { status: 'FAILED', outcome: 'FAILED' }],
      ['FAILED marked not useful (BAD_CASE)', { status: 'BAD_CASE', outcome: 'FAILED' }],
    ] as const)('never asks the LLM about a failed run (docs/spec/evaluation.md §1: FAILED → 0): %s', async (_label, state) => {
      const h = harness(llmEnv());
      const s = sessionRow({ ...state, answer: '抱歉，处理您的问题时出现了异常。' });
      h.sessions.set(s.id, s);
      await h.hooks.sessionFinished(tenantId, s);
      expect(h.enqueued).toEqual([]);
      expect(await h.service.evaluateNow(tenantId, s.id)).toMatchObject({ source: 'rule', confidence: 0, fallbackReason: 'run_failed' });
      // a job queued before the run failed stores the rule 0 too
      await h.selfEvaluate.run(jobContext({ sessionId: s.id }, 1) as never);
      expect(h.stored.map((e) => [e.source, e.confidence, e.fallbackReason])).toEqual([
        ['rule', 0, 'run_failed'],
        ['rule', 0, 'run_failed'],
        ['rule', 0, 'run_failed'],
      ]);
      expect(fake.chatRequests()).toHaveLength(0);
    });

    it('stores a valid LLM verdict with source llm and the model, from a prompt carrying answer and steps', async () => {
      const h = harness(llmEnv());
      const s = sessionRow();
      h.sessions.set(s.id, s);
      fake.replyWith('{"confidence": 86, "reasoning": "答案引用了《伺服报警手册》(score 0.82)，与 E102 对应。"}');
      await h.selfEvaluate.run(jobContext({ sessionId: s.id }, 1) as never);
      expect(h.stored).toEqual([
        {
          confidence: 86,
          reasoning: '答案引用了《伺服报警手册》(score 0.82)，与 E102 对应。',
          source: 'llm',
          evaluatedAt: expect.any(String),
          model: 'judge-1',
        },
      ]);
      const [request] = fake.chatRequests();
      expect(request.model).toBe('judge-1');
      const text = JSON.stringify(request.messages);
      expect(text).toContain('请检查伺服电机温度');
      expect(text).toContain('2 steps; 1 tool calls');
      expect(text).toContain('Cite evidence');
    });

    it.each([
      ['a timeout', { kind: 'content' as const, content: '{"confidence": 90, "reasoning": "late"}', delayMs: 2_000 }, 'llm_timeout', /did not answer in time/],
      ['a malformed body', { kind: 'malformed' as const }, 'llm_error', /LLM call failed/],
      ['prose instead of JSON', { kind: 'content' as const, content: 'Looks good to me: 80/100' }, 'llm_invalid_output', /not a JSON object/],
      [
        'an out-of-range confidence',
        { kind: 'content' as const, content: '{"confidence": 140, "reasoning": "x"}' },
        'llm_invalid_output',
        /confidence 140 is outside 0-100/,
      ],
      ['a 0-1 confidence', { kind: 'content' as const, content: '{"confidence": 0.9, "reasoning": "x"}' }, 'llm_invalid_output', /not an integer/],
      ['an HTTP 503', { kind: 'error' as const, status: 503, message: 'overloaded' }, 'llm_error', /overloaded/],
    ])('falls back to the rules on %s, stores it at once and retries the job', async (_label, reply, reason, why) => {
      const h = harness(llmEnv());
      const s = sessionRow({ stepCount: 4, toolCallCount: 5 });
      h.sessions.set(s.id, s);
      fake.enqueueChat(reply);
      const started = performance.now();
      await expect(h.selfEvaluate.run(jobContext({ sessionId: s.id }, 1) as never)).rejects.toThrow(/retrying/);
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(h.stored[0]).toMatchObject({ source: 'rule', confidence: 80, fallbackReason: reason });
      expect(h.stored[0].reasoning).toMatch(why);
      expect(h.stored[0].reasoning).toMatch(/base 60; 5 tool calls × \+5 → \+20 \(capped at \+20\); 4 steps > 3 → \+0/);
    });

    it('keeps the rule fallback and succeeds on the last attempt', async () => {
      const h = harness(llmEnv());
      const s = sessionRow();
      h.sessions.set(s.id, s);
      fake.enqueueChat({ kind: 'malformed' });
      await expect(h.selfEvaluate.run(jobContext({ sessionId: s.id }, 3) as never)).resolves.toBeUndefined();
      expect(h.stored[0]).toMatchObject({ source: 'rule', fallbackReason: 'llm_error' });
    });

    it('re-evaluates now, inline, through the LLM', async () => {
      const h = harness(llmEnv());
      const s = sessionRow();
      h.sessions.set(s.id, s);
      fake.replyWith('{"confidence": 42, "reasoning": "The manual is cited but E102 is not covered."}');
      expect(await h.service.evaluateNow(tenantId, s.id)).toMatchObject({ source: 'llm', confidence: 42, model: 'judge-1' });
    });

    it('retries rule fallbacks whose LLM call failed, upgrading those the LLM now answers', async () => {
      const h = harness(llmEnv());
      for (const id of ['a', 'b', 'c']) {
        h.sessions.set(id, sessionRow({ id }));
        h.fallbackIds.push(id);
      }
      fake.enqueueChat(
        { kind: 'content', content: '{"confidence": 70, "reasoning": "ok a"}' },
        { kind: 'content', content: 'not json' },
        { kind: 'content', content: '{"confidence": 75, "reasoning": "ok c"}' },
      );
      const result = await h.service.retryRuleFallbacks(tenantId);
      expect(result).toEqual({ attempted: 3, upgraded: 2, stillFallback: 1 });
      expect(h.sessions.get('a')?.selfEvaluation).toMatchObject({ source: 'llm', confidence: 70 });
      expect(h.sessions.get('b')?.selfEvaluation).toBeNull();
      expect(h.sessions.get('c')?.selfEvaluation).toMatchObject({ source: 'llm', confidence: 75 });
    });

    it('stops retrying after 3 consecutive failures (the LLM is still down)', async () => {
      const h = harness(llmEnv());
      for (let i = 0; i < 10; i++) {
        h.sessions.set(`s${i}`, sessionRow({ id: `s${i}` }));
        h.fallbackIds.push(`s${i}`);
      }
      fake.setChatHandler(() => ({ kind: 'error', status: 503 }));
      const progress = jest.fn(async () => undefined);
      expect(await h.service.retryRuleFallbacks(tenantId, { onProgress: progress })).toEqual({ attempted: 3, upgraded: 0, stillFallback: 3 });
      expect(fake.chatRequests()).toHaveLength(3);
    });
  });
});
