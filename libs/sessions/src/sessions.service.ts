import { Injectable } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import type { DiagnosisSessionEntity } from './diagnosis-session.entity.js';
import type { IngestSessionDto } from './dto/ingest-session.dto.js';
import { SessionHooks } from './session-hooks.js';
import { toSessionView, type SessionView } from './session-view.js';
import { SessionsErrorCode, SessionsException } from './sessions.exception.js';
import { SessionsRepository, type NewToolInvocation, type SessionPatch } from './sessions.repository.js';
import type { ToolInvocationEntity } from './tool-invocation.entity.js';

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

  /** Records a turn an external agent already finished, runs the finished-session hooks, returns the view. */
  async ingest(tenantId: TenantId, dto: IngestSessionDto): Promise<SessionView> {
    const references = dto.references ?? [];
    const now = new Date();
    const session = await this.repository.insertSession(
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
      },
    );
    if (!session) throw new SessionsException(SessionsErrorCode.ConversationNotFound, dto.conversationId);
    await this.hooks.sessionFinished(tenantId, session);
    return this.getView(tenantId, session.id);
  }

  /** Opens a RUNNING session for a live agent run (chat pipeline). */
  async start(tenantId: TenantId, input: StartSessionInput): Promise<DiagnosisSessionEntity> {
    const session = await this.repository.insertSession(
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
    );
    if (!session) throw new SessionsException(SessionsErrorCode.ConversationNotFound, input.conversationId);
    return session;
  }

  /** Updates a session in flight (e.g. its route trace) without finishing it. */
  async update(tenantId: TenantId, sessionId: string, patch: SessionPatch): Promise<DiagnosisSessionEntity> {
    const session = await this.repository.updateSession(tenantId, sessionId, patch);
    if (!session) throw new SessionsException(SessionsErrorCode.SessionNotFound, sessionId);
    return session;
  }

  /** Marks the run finished and runs the finished-session hooks (evaluation, coverage). */
  async finish(tenantId: TenantId, sessionId: string, patch: FinishSessionInput): Promise<DiagnosisSessionEntity> {
    const session = await this.update(tenantId, sessionId, { ...patch, outcome: patch.status, finishedAt: new Date() });
    await this.hooks.sessionFinished(tenantId, session);
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
