import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, LessThan, type EntityManager, type Repository } from 'typeorm';
import type { TenantId } from '@arbiter/common';
import { ConversationEntity } from './conversation.entity.js';
import { DiagnosisSessionEntity } from './diagnosis-session.entity.js';
import type { FinishPlan } from './session-hooks.js';
import { SqlParams } from './sql-params.js';
import { ToolInvocationEntity } from './tool-invocation.entity.js';

export type NewSession = Omit<
  DiagnosisSessionEntity,
  | 'id'
  | 'tenantId'
  | 'conversationId'
  | 'conversation'
  | 'createdAt'
  | 'updatedAt'
  | 'selfEvaluation'
  | 'feedback'
  | 'routeTrace'
  | 'hooksDone'
  | 'idempotencyKey'
  | 'requestHash'
> &
  Partial<Pick<DiagnosisSessionEntity, 'routeTrace' | 'idempotencyKey' | 'requestHash'>>;

export type SessionPatch = Partial<
  Pick<
    DiagnosisSessionEntity,
    | 'answer'
    | 'status'
    | 'outcome'
    | 'intent'
    | 'stepCount'
    | 'toolCallCount'
    | 'references'
    | 'media'
    | 'knowledgeSearched'
    | 'selfEvaluation'
    | 'routeTrace'
    | 'error'
    | 'latencyMs'
    | 'finishedAt'
  >
>;

/**
 * A caller's scalar subquery read in the session start statement (its snapshot: the new session is not
 * in it), given SQL expressions of the tenant, the conversation and the new session's id.
 */
export type SessionStartRead = (p: SqlParams, row: { tenantId: string; conversationId: string; sessionId: string }) => string;

export type NewToolInvocation = Omit<ToolInvocationEntity, 'id' | 'tenantId' | 'session' | 'createdAt'>;

/** All session SQL. Every method is scoped by the tenant id it takes first. */
@Injectable()
export class SessionsRepository {
  constructor(
    @InjectRepository(ConversationEntity) private readonly conversations: Repository<ConversationEntity>,
    @InjectRepository(DiagnosisSessionEntity) private readonly sessions: Repository<DiagnosisSessionEntity>,
    @InjectRepository(ToolInvocationEntity) private readonly invocations: Repository<ToolInvocationEntity>,
  ) {}

  findConversation(tenantId: TenantId, conversationId: string): Promise<ConversationEntity | null> {
    return this.conversations.findOneBy({ tenantId, id: conversationId });
  }

  /**
   * Inserts a session into an existing conversation (touching its activity time) or into a new one,
   * in one transaction. Returns null when the given conversation does not exist in this tenant.
   */
  async insertSession(
    tenantId: TenantId,
    conversation: { id?: string; channel: string; userRef: string | null },
    session: NewSession,
  ): Promise<DiagnosisSessionEntity | null> {
    return this.sessions.manager.transaction(async (em) => {
      const conversationId = conversation.id
        ? await this.touchConversation(em, tenantId, conversation.id)
        : await this.createConversation(em, tenantId, conversation.channel, conversation.userRef);
      if (!conversationId) return null;
      // hooks_done stays false until the finished-session hooks ran (sessions.repair finishes the job after a crash).
      const entity = em.create(DiagnosisSessionEntity, { ...session, hooksDone: false, tenantId, conversationId });
      return em.save(entity);
    });
  }

  private async touchConversation(em: EntityManager, tenantId: TenantId, conversationId: string): Promise<string | null> {
    const result = await em.update(ConversationEntity, { tenantId, id: conversationId }, { lastActivityAt: () => 'now()' });
    return result.affected ? conversationId : null;
  }

  private async createConversation(em: EntityManager, tenantId: TenantId, channel: string, userRef: string | null): Promise<string> {
    const saved = await em.save(em.create(ConversationEntity, { tenantId, channel, userRef }));
    return saved.id;
  }

  /**
   * `insertSession` in one statement (the chat's session start, docs/hot-paths.md "Chat turn"): the new
   * conversation, or the touch of the given one, and the session are data-modifying CTEs of one INSERT,
   * so they commit together without BEGIN/COMMIT round trips. Null when the conversation is not this tenant's.
   */
  async insertSessionAtOnce(
    tenantId: TenantId,
    conversation: { id?: string; channel: string; userRef: string | null },
    session: NewSession,
    alsoRead?: SessionStartRead,
  ): Promise<{ session: DiagnosisSessionEntity; extra: unknown } | null> {
    const p = new SqlParams();
    const tenant = p.add(tenantId, 'uuid');
    const conversationSql = conversation.id
      ? `UPDATE conversation SET last_activity_at = now() WHERE tenant_id = ${tenant} AND id = ${p.add(conversation.id, 'uuid')} RETURNING id`
      : `INSERT INTO conversation (tenant_id, channel, user_ref) VALUES (${tenant}, ${p.add(conversation.channel)}, ${p.add(conversation.userRef)}) RETURNING id`;
    // hooks_done stays false until the finished-session hooks ran (sessions.repair finishes the job after a crash).
    const values: Record<string, string> = { tenant_id: tenant, conversation_id: 'c.id', hooks_done: 'false' };
    for (const [property, value] of Object.entries(session)) {
      if (value === undefined) continue;
      const column = this.column(property);
      values[column.name] = column.jsonb ? p.json(value) : p.add(value);
    }
    const extra = alsoRead
      ? `, (${alsoRead(p, { tenantId: tenant, conversationId: '(SELECT id FROM c)', sessionId: 'diagnosis_session.id' })}) AS "__extra"`
      : '';
    const rows: Record<string, unknown>[] = await this.sessions.query(
      `WITH c AS (${conversationSql})
       INSERT INTO diagnosis_session (${Object.keys(values).join(', ')}) SELECT ${Object.values(values).join(', ')} FROM c RETURNING *${extra}`,
      p.values,
    );
    const row = rows[0];
    if (!row) return null;
    const read = row.__extra ?? null;
    delete row.__extra;
    return { session: this.fromRow(row), extra: read };
  }

  /**
   * Applies a finishing patch and the finished-session hooks' planned writes in one statement (docs/hot-paths.md
   * "Chat turn"): the session UPDATE (with `hooks_done = true` and the columns the hooks set) and each
   * hook's CTE commit together, so the hooks ran exactly once exactly when the session is finished.
   * Returns the updated row and each plan's CTE row count; null when the session is not this tenant's.
   */
  async finishPlanned(
    tenantId: TenantId,
    sessionId: string,
    patch: SessionPatch,
    plans: readonly FinishPlan[],
  ): Promise<{ session: DiagnosisSessionEntity; cteRows: number[] } | null> {
    const p = new SqlParams();
    const sets: string[] = ['hooks_done = true', 'updated_at = now()'];
    const columns: Record<string, unknown> = { ...patch };
    for (const plan of plans) Object.assign(columns, plan.session ?? {});
    for (const [property, value] of Object.entries(columns)) {
      if (value === undefined) continue;
      const column = this.column(property);
      sets.push(`${column.name} = ${column.jsonb ? p.json(value) : p.add(value)}`);
    }
    const ctes = [
      `s AS (UPDATE diagnosis_session SET ${sets.join(', ')} WHERE tenant_id = ${p.add(tenantId, 'uuid')} AND id = ${p.add(sessionId, 'uuid')} RETURNING *)`,
    ];
    const counts: string[] = [];
    plans.forEach((plan, i) => {
      if (!plan.cte) return counts.push('0');
      ctes.push(`h${i} AS (${plan.cte(p, 's')})`);
      counts.push(`(SELECT count(*) FROM h${i})::int`);
    });
    const rows: Record<string, unknown>[] = await this.sessions.query(
      `WITH ${ctes.join(',\n')} SELECT s.*, ARRAY[${counts.join(', ') || '0'}]::int[] AS "__cte_rows" FROM s`,
      p.values,
    );
    const row = rows[0];
    if (!row) return null;
    const cteRows = (row.__cte_rows as number[]).slice(0, plans.length);
    delete row.__cte_rows;
    return { session: this.fromRow(row), cteRows };
  }

  /** The stored column of an entity property, and whether it is jsonb. */
  private column(property: string): { name: string; jsonb: boolean } {
    const column = this.sessions.metadata.findColumnWithPropertyName(property);
    if (!column) throw new Error(`diagnosis_session has no column for "${property}"`);
    return { name: column.databaseName, jsonb: column.type === 'jsonb' };
  }

  /** An entity from a raw `RETURNING *` row (pg already parsed the types). */
  private fromRow(row: Record<string, unknown>): DiagnosisSessionEntity {
    const entity = this.sessions.create();
    for (const column of this.sessions.metadata.columns) {
      if (column.databaseName in row) (entity as unknown as Record<string, unknown>)[column.propertyName] = row[column.databaseName];
    }
    return entity;
  }

  findSession(tenantId: TenantId, sessionId: string): Promise<DiagnosisSessionEntity | null> {
    return this.sessions.findOneBy({ tenantId, id: sessionId });
  }

  /** Applies the patch and returns the updated row, or null when the session is not this tenant's. */
  /** Updates a session; with `record` (an operator's change in the audit log, docs/http-edge.md "Audit log") in one transaction. */
  async updateSession(
    tenantId: TenantId,
    sessionId: string,
    patch: SessionPatch,
    record?: (em: EntityManager) => Promise<void>,
  ): Promise<DiagnosisSessionEntity | null> {
    // TypeORM's deep-partial type rejects free-form jsonb values; the columns accept them.
    const values = patch as Parameters<Repository<DiagnosisSessionEntity>['update']>[1];
    const affected = record
      ? await this.sessions.manager.transaction(async (em) => {
          const result = await em.getRepository(DiagnosisSessionEntity).update({ tenantId, id: sessionId }, values);
          if (result.affected) await record(em);
          return result.affected;
        })
      : (await this.sessions.update({ tenantId, id: sessionId }, values)).affected;
    if (!affected) return null;
    return this.findSession(tenantId, sessionId);
  }

  findByIdempotencyKey(tenantId: TenantId, idempotencyKey: string): Promise<DiagnosisSessionEntity | null> {
    return this.sessions.findOneBy({ tenantId, idempotencyKey });
  }

  async markHooksDone(tenantId: TenantId, sessionId: string): Promise<void> {
    await this.sessions.update({ tenantId, id: sessionId }, { hooksDone: true });
  }

  /**
   * Closes sessions left RUNNING since before `startedBefore` (the process running the turn died) as
   * FAILED with `reason`, oldest first, at most `limit`; returns them. A turn finishing at the same
   * moment wins: only rows still RUNNING are touched, and rows locked by a live update are skipped.
   */
  async failAbandoned(tenantId: TenantId, startedBefore: Date, reason: string, limit: number): Promise<DiagnosisSessionEntity[]> {
    const result = await this.sessions.query<unknown[]>(
      `UPDATE diagnosis_session SET status = 'FAILED', outcome = 'FAILED', error = $3, finished_at = now(), updated_at = now(), hooks_done = false
        WHERE tenant_id = $1 AND id IN (SELECT id FROM diagnosis_session
                      WHERE tenant_id = $1 AND status = 'RUNNING' AND created_at < $2
                      ORDER BY created_at LIMIT $4 FOR UPDATE SKIP LOCKED)
          AND status = 'RUNNING'
        RETURNING id`,
      [tenantId, startedBefore, reason, limit],
    );
    // TypeORM returns an UPDATE … RETURNING as [rows, affected].
    const rows = (Array.isArray(result[0]) ? result[0] : result) as Array<{ id: string }>;
    return this.findMany(
      tenantId,
      rows.map((r) => r.id),
    );
  }

  /** Finished sessions whose hooks never completed, finished before `finishedBefore`, oldest first. */
  findHooksPending(tenantId: TenantId, finishedBefore: Date, limit: number): Promise<DiagnosisSessionEntity[]> {
    return this.sessions.find({ where: { tenantId, hooksDone: false, finishedAt: LessThan(finishedBefore) }, order: { finishedAt: 'ASC' }, take: limit });
  }

  private findMany(tenantId: TenantId, ids: string[]): Promise<DiagnosisSessionEntity[]> {
    return ids.length ? this.sessions.find({ where: { tenantId, id: In(ids) }, order: { createdAt: 'ASC' } }) : Promise.resolve([]);
  }

  async insertToolInvocation(tenantId: TenantId, invocation: NewToolInvocation): Promise<ToolInvocationEntity> {
    return this.invocations.save(this.invocations.create({ ...invocation, tenantId }));
  }

  listToolInvocations(tenantId: TenantId, sessionId: string): Promise<ToolInvocationEntity[]> {
    return this.invocations.find({ where: { tenantId, sessionId }, order: { createdAt: 'ASC' } });
  }
}
