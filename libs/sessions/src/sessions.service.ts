import { Injectable } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import type { Db } from '@arbiter/database';
import type { DiagnosisSessionEntity } from './entities/diagnosis-session.entity.js';
import type { IngestSessionDto } from './dto/ingest-session.dto.js';
import { requestHash } from './idempotency.js';
import { SessionHooks } from './session-hooks.js';
import { toSessionView, type SessionView } from './session-view.js';
import { SessionsErrorCode, SessionsException } from './sessions.exception.js';
import { SessionsRepository, type NewToolInvocation, type SessionPatch, type SessionStartRead } from './sessions.repository.js';
import type { ToolInvocationEntity } from './entities/tool-invocation.entity.js';

export interface StartSessionInput {
  conversationId?: string;
  channel: string;
  userRef?: string | null;
  query: string;
  media?: DiagnosisSessionEntity['media'];
}

export type FinishSessionInput = SessionPatch & { status: 'SUCCESS' | 'FAILED' };

@Injectable()
export class SessionsService {
  constructor(
    private readonly repository: SessionsRepository,
    private readonly hooks: SessionHooks,
  ) {}

  /**
   * Records a turn an external agent already finished, runs the finished-session hooks, returns the view.
   * With an idempotency key: a retry with the same key and body returns the session stored first (no
   * duplicate, hooks not run again); the same key with another body is refused (422).
   */
  async ingest(tenantId: TenantId, dto: IngestSessionDto, idempotencyKey?: string): Promise<SessionView> {
    const hash = idempotencyKey ? requestHash(dto) : null;
    if (idempotencyKey) {
      const existing = await this.repository.findByIdempotencyKey(tenantId, idempotencyKey);
      if (existing) return this.replay(tenantId, existing, hash);
    }
    let session: DiagnosisSessionEntity | null;
    try {
      session = await this.insertIngested(tenantId, dto, idempotencyKey ?? null, hash);
    } catch (error) {
      // A concurrent request with the same key committed first.
      const existing = idempotencyKey && isUniqueViolation(error) ? await this.repository.findByIdempotencyKey(tenantId, idempotencyKey) : null;
      if (existing) return this.replay(tenantId, existing, hash);
      throw error;
    }
    if (!session) throw new SessionsException(SessionsErrorCode.ConversationNotFound, dto.conversationId);
    await this.runFinishedHooks(tenantId, session);
    return this.getView(tenantId, session.id);
  }

  private replay(tenantId: TenantId, existing: DiagnosisSessionEntity, hash: string | null): Promise<SessionView> {
    if (existing.requestHash !== hash) throw new SessionsException(SessionsErrorCode.IdempotencyKeyReused);
    return this.getView(tenantId, existing.id);
  }

  private insertIngested(
    tenantId: TenantId,
    dto: IngestSessionDto,
    idempotencyKey: string | null,
    hash: string | null,
  ): Promise<DiagnosisSessionEntity | null> {
    const references = dto.references ?? [];
    const now = new Date();
    return this.repository.insertSession(
      tenantId,
      { id: dto.conversationId, channel: dto.channel ?? 'web', userRef: dto.userRef ?? null },
      {
        channel: dto.channel ?? 'web',
        userRef: dto.userRef ?? null,
        query: dto.query,
        answer: dto.answer ?? null,
        status: dto.status,
        outcome: dto.status,
        intent: null,
        stepCount: dto.stepCount ?? 0,
        toolCallCount: dto.toolCallCount ?? 0,
        references: references.map((r) => ({ ...r })),
        media: (dto.media ?? []).map((m) => ({ ...m })),
        knowledgeSearched: dto.knowledgeSearched ?? references.length > 0,
        error: null,
        latencyMs: dto.latencyMs ?? null,
        finishedAt: now,
        idempotencyKey,
        requestHash: hash,
      },
    );
  }

  /**
   * Runs the finished-session hooks and records that they ran. When the process dies first (or a hook
   * fails), `hooks_done` stays false and the `sessions.repair` job runs them later.
   */
  async runFinishedHooks(tenantId: TenantId, session: DiagnosisSessionEntity): Promise<boolean> {
    const ok = await this.hooks.sessionFinished(tenantId, session);
    if (ok) await this.repository.markHooksDone(tenantId, session.id);
    return ok;
  }

  /** Opens a RUNNING session for a live agent run (chat pipeline). */
  async start(tenantId: TenantId, input: StartSessionInput): Promise<DiagnosisSessionEntity> {
    return (await this.startReading(tenantId, input)).session;
  }

  /**
   * `start`, plus the caller's read of `alsoRead` in the same statement (e.g. the chat's documents
   * already cited in the conversation: docs/hot-paths.md "Chat turn"); `extra` is its json value.
   */
  async startReading(tenantId: TenantId, input: StartSessionInput, alsoRead?: SessionStartRead): Promise<{ session: DiagnosisSessionEntity; extra: unknown }> {
    const started = await this.repository.insertSessionAtOnce(
      tenantId,
      { id: input.conversationId, channel: input.channel, userRef: input.userRef ?? null },
      {
        channel: input.channel,
        userRef: input.userRef ?? null,
        query: input.query,
        answer: null,
        status: 'RUNNING',
        outcome: null,
        intent: null,
        stepCount: 0,
        toolCallCount: 0,
        references: [],
        media: input.media ?? [],
        knowledgeSearched: false,
        error: null,
        latencyMs: null,
        finishedAt: null,
      },
      alsoRead,
    );
    if (!started) throw new SessionsException(SessionsErrorCode.ConversationNotFound, input.conversationId);
    return started;
  }

  /** Updates a session in flight (e.g. its route trace) without finishing it. */
  /** `record`: the change's audit entry, written in its transaction (an operator's request). */
  async update(tenantId: TenantId, sessionId: string, patch: SessionPatch, record?: (tx: Db) => Promise<void>): Promise<DiagnosisSessionEntity> {
    const session = await this.repository.updateSession(tenantId, sessionId, patch, record);
    if (!session) throw new SessionsException(SessionsErrorCode.SessionNotFound, sessionId);
    return session;
  }

  /**
   * Marks the run finished and runs the finished-session hooks (evaluation, coverage). Given the session
   * as `start` returned it (`running`), the hooks plan their writes and everything commits in one
   * statement, without re-reading the row (docs/hot-paths.md "Chat turn"); otherwise, or when a hook
   * cannot plan (e.g. an LLM self-evaluation job), the update, the handlers and a re-read run in turn.
   */
  async finish(tenantId: TenantId, sessionId: string, patch: FinishSessionInput, running?: DiagnosisSessionEntity): Promise<DiagnosisSessionEntity> {
    const full: SessionPatch = { ...patch, outcome: patch.status, finishedAt: new Date() };
    if (running && running.id === sessionId) {
      const plans = this.hooks.planFinished(
        tenantId,
        Object.assign(Object.create(Object.getPrototypeOf(running) as object) as DiagnosisSessionEntity, running, full),
      );
      if (plans) {
        const done = await this.repository.finishPlanned(tenantId, sessionId, full, plans);
        if (!done) throw new SessionsException(SessionsErrorCode.SessionNotFound, sessionId);
        plans.forEach((plan, i) => plan.done?.(done.cteRows[i] ?? 0));
        return done.session;
      }
    }
    const session = await this.update(tenantId, sessionId, full);
    await this.runFinishedHooks(tenantId, session);
    return (await this.repository.findSession(tenantId, sessionId)) ?? session;
  }

  recordToolInvocation(tenantId: TenantId, invocation: NewToolInvocation): Promise<ToolInvocationEntity> {
    return this.repository.insertToolInvocation(tenantId, invocation);
  }

  listToolInvocations(tenantId: TenantId, sessionId: string): Promise<ToolInvocationEntity[]> {
    return this.repository.listToolInvocations(tenantId, sessionId);
  }

  async get(tenantId: TenantId, sessionId: string): Promise<DiagnosisSessionEntity> {
    const session = await this.repository.findSession(tenantId, sessionId);
    if (!session) throw new SessionsException(SessionsErrorCode.SessionNotFound, sessionId);
    return session;
  }

  async conversationExists(tenantId: TenantId, conversationId: string): Promise<boolean> {
    return (await this.repository.findConversation(tenantId, conversationId)) !== null;
  }

  async getView(tenantId: TenantId, sessionId: string): Promise<SessionView> {
    const session = await this.get(tenantId, sessionId);
    const extras = await this.hooks.enrich(tenantId, [session.id]);
    return toSessionView(session, extras.get(session.id));
  }
}

function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: unknown; driverError?: { code?: unknown } } | null;
  return e?.code === '23505' || e?.driverError?.code === '23505';
}
