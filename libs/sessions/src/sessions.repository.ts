import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import {
  Database,
  sql,
  type Conversation as ConversationTable,
  type Db,
  type DiagnosisSession as SessionTable,
  type Expression,
  type Json,
  type RawBuilder,
  type Selectable,
  type ToolInvocation as ToolInvocationTable,
  type Updateable,
} from '@arbiter/database';
import type { ConversationEntity } from './entities/conversation.entity.js';
import type { DiagnosisSessionEntity } from './entities/diagnosis-session.entity.js';
import type { FinishPlan } from './session-hooks.js';
import type { FeedbackValue, RunOutcome, SelfEvaluation, SessionMedia, SessionReference, SessionStatus } from './session.types.js';
import type { ToolInvocationEntity, ToolInvocationStatus } from './entities/tool-invocation.entity.js';

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

/** SQL expressions of the tenant, the conversation and the new session's id in the session start statement. */
export interface SessionStartRow {
  tenantId: RawBuilder<string>;
  conversationId: RawBuilder<string>;
  sessionId: RawBuilder<string>;
}

/**
 * A caller's scalar subquery read in the session start statement (its snapshot: the new session is not
 * in it), given SQL expressions of the tenant, the conversation and the new session's id.
 */
export type SessionStartRead = (row: SessionStartRow) => RawBuilder<unknown>;

export type NewToolInvocation = Omit<ToolInvocationEntity, 'id' | 'tenantId' | 'session' | 'createdAt'>;

/** The session fields a repository method writes. */
type SessionFields = Partial<NewSession & SessionPatch>;

/** Column values of a session write: parameters, or SQL expressions (a jsonb parameter with its cast). */
type SessionColumn = Required<Updateable<SessionTable>>;
type SessionValues = { [C in keyof SessionColumn]?: SessionColumn[C] | Expression<SessionColumn[C]> };

/** A jsonb value as a parameter (node-pg would send a JS array as a PostgreSQL array, not JSON). */
function jsonb(value: unknown): RawBuilder<string | null> {
  return sql<string | null>`${value === null || value === undefined ? null : JSON.stringify(value)}::jsonb`;
}

/** The columns of the given fields (absent fields are left out, so an UPDATE keeps them). */
function sessionColumns(f: SessionFields): SessionValues {
  const c: SessionValues = {};
  if (f.channel !== undefined) c.channel = f.channel;
  if (f.userRef !== undefined) c.user_ref = f.userRef;
  if (f.query !== undefined) c.query = f.query;
  if (f.answer !== undefined) c.answer = f.answer;
  if (f.status !== undefined) c.status = f.status;
  if (f.outcome !== undefined) c.outcome = f.outcome;
  if (f.intent !== undefined) c.intent = f.intent;
  if (f.stepCount !== undefined) c.step_count = f.stepCount;
  if (f.toolCallCount !== undefined) c.tool_call_count = f.toolCallCount;
  if (f.references !== undefined) c.source_references = jsonb(f.references);
  if (f.media !== undefined) c.media = jsonb(f.media);
  if (f.knowledgeSearched !== undefined) c.knowledge_searched = f.knowledgeSearched;
  if (f.selfEvaluation !== undefined) c.self_evaluation = jsonb(f.selfEvaluation);
  if (f.routeTrace !== undefined) c.route_trace = jsonb(f.routeTrace);
  if (f.error !== undefined) c.error = f.error;
  if (f.latencyMs !== undefined) c.latency_ms = f.latencyMs;
  if (f.finishedAt !== undefined) c.finished_at = f.finishedAt;
  if (f.idempotencyKey !== undefined) c.idempotency_key = f.idempotencyKey;
  if (f.requestHash !== undefined) c.request_hash = f.requestHash;
  return c;
}

/** `column = value` list items (a value is a parameter or, for jsonb, a cast parameter). */
function assignments(columns: SessionValues): RawBuilder<unknown>[] {
  return Object.entries(columns).map(([column, value]) => sql`${sql.ref(column)} = ${value}`);
}

/** A jsonb value as the domain type the writers stored (pg parsed it; the entity types describe it). */
function fromJson<T>(value: Json): T {
  return value as T;
}

function toSession(r: Selectable<SessionTable>): DiagnosisSessionEntity {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    conversationId: r.conversation_id,
    channel: r.channel,
    userRef: r.user_ref,
    query: r.query,
    answer: r.answer,
    status: r.status as SessionStatus,
    outcome: r.outcome as RunOutcome | null,
    intent: r.intent,
    stepCount: r.step_count,
    toolCallCount: r.tool_call_count,
    references: fromJson<SessionReference[]>(r.source_references),
    media: fromJson<SessionMedia[]>(r.media),
    knowledgeSearched: r.knowledge_searched,
    selfEvaluation: r.self_evaluation as SelfEvaluation | null,
    feedback: r.feedback as FeedbackValue | null,
    routeTrace: r.route_trace as Record<string, unknown> | null,
    error: r.error,
    latencyMs: r.latency_ms,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    finishedAt: r.finished_at,
    hooksDone: r.hooks_done,
    idempotencyKey: r.idempotency_key,
    requestHash: r.request_hash,
  };
}

function toConversation(r: Selectable<ConversationTable>): ConversationEntity {
  return { id: r.id, tenantId: r.tenant_id, channel: r.channel, userRef: r.user_ref, createdAt: r.created_at, lastActivityAt: r.last_activity_at };
}

function toInvocation(r: Selectable<ToolInvocationTable>): ToolInvocationEntity {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    sessionId: r.session_id,
    toolName: r.tool_name,
    arguments: r.arguments as Record<string, unknown>,
    status: r.status as ToolInvocationStatus,
    resultSummary: r.result_summary,
    relevanceLevel: r.relevance_level,
    dedupReason: r.dedup_reason,
    retrievalDetails: r.retrieval_details as Record<string, unknown> | null,
    durationMs: r.duration_ms,
    error: r.error,
    createdAt: r.created_at,
  };
}

/** All session SQL, on the typed data layer (docs/data-layer.md). Every method is scoped by the tenant id it takes first. */
@Injectable()
export class SessionsRepository {
  constructor(private readonly database: Database) {}

  async findConversation(tenantId: TenantId, conversationId: string): Promise<ConversationEntity | null> {
    const row = await this.database.db
      .selectFrom('conversation')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', conversationId)
      .executeTakeFirst();
    return row ? toConversation(row) : null;
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
    return this.database.transaction(async (tx) => {
      const conversationId = conversation.id
        ? await this.touchConversation(tx, tenantId, conversation.id)
        : await this.createConversation(tx, tenantId, conversation.channel, conversation.userRef);
      if (!conversationId) return null;
      // hooks_done stays false until the finished-session hooks ran (sessions.repair finishes the job after a crash).
      const row = await tx
        .insertInto('diagnosis_session')
        .values({ ...sessionColumns(session), query: session.query, hooks_done: false, tenant_id: tenantId, conversation_id: conversationId })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toSession(row);
    });
  }

  private async touchConversation(tx: Db, tenantId: TenantId, conversationId: string): Promise<string | null> {
    const result = await tx
      .updateTable('conversation')
      .set({ last_activity_at: sql<Date>`now()` })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', conversationId)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n ? conversationId : null;
  }

  private async createConversation(tx: Db, tenantId: TenantId, channel: string, userRef: string | null): Promise<string> {
    const row = await tx.insertInto('conversation').values({ tenant_id: tenantId, channel, user_ref: userRef }).returning('id').executeTakeFirstOrThrow();
    return row.id;
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
    const tenant = sql<string>`${tenantId}::uuid`;
    // The ids are chosen here so that the caller's read can name the new session before it is inserted, and so that
    // the session is inserted with VALUES: selected from the conversation's CTE, Citus copied that CTE's row to every
    // worker and committed the turn's start on all of them (docs/SCALING.md "Hot paths on one shard").
    const sessionId = sql<string>`${randomUUID()}::uuid`;
    const conversationId = sql<string>`${conversation.id ?? randomUUID()}::uuid`;
    const conversationSql = conversation.id
      ? sql`UPDATE conversation SET last_activity_at = now() WHERE tenant_id = ${tenant} AND id = ${conversationId} RETURNING id`
      : sql`INSERT INTO conversation (id, tenant_id, channel, user_ref) VALUES (${conversationId}, ${tenant}, ${conversation.channel}, ${conversation.userRef}) RETURNING id`;
    // hooks_done stays false until the finished-session hooks ran (sessions.repair finishes the job after a crash).
    const values: [string, unknown][] = [
      ['id', sessionId],
      ['tenant_id', tenant],
      ['conversation_id', conversationId],
      ['hooks_done', sql`false`],
      ...Object.entries(sessionColumns(session)),
    ];
    // The caller's read is a CTE evaluated before the insert, not a subquery in RETURNING: Citus runs the RETURNING
    // on the shard without the statement's parameters (docs/SCALING.md "Running on Citus"). MATERIALIZED keeps it a
    // step of its own there, run before the insert, so it sees the conversation as the statement found it, like
    // PostgreSQL's one snapshot does.
    const read = alsoRead
      ? sql`,
       start_read AS MATERIALIZED (SELECT (${alsoRead({ tenantId: tenant, conversationId, sessionId })}) AS extra)`
      : sql``;
    try {
      const { rows } = await sql<Selectable<SessionTable> & { __extra?: unknown }>`WITH c AS (${conversationSql})${read},
       started AS (INSERT INTO diagnosis_session (${sql.join(values.map(([column]) => sql.ref(column)))})
                   VALUES (${sql.join(values.map(([, value]) => value))}) RETURNING *)
       SELECT started.*${alsoRead ? sql`, start_read.extra AS "__extra" FROM started, start_read` : sql` FROM started`}`.execute(this.database.db);
      const row = rows[0];
      if (!row) return null;
      return { session: toSession(row), extra: row.__extra ?? null };
    } catch (error) {
      // A given conversation that is not this tenant's (or no longer exists): the UPDATE touched nothing and the
      // session's key to it fails the statement, so nothing of it was written.
      if (violates(error, 'fk_session_conversation')) return null;
      throw error;
    }
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
    const fields: SessionFields = { ...patch };
    for (const plan of plans) Object.assign(fields, plan.session ?? {});
    const sets = [sql`hooks_done = true`, sql`updated_at = now()`, ...assignments(sessionColumns(fields))];
    const ctes = [sql`s AS (UPDATE diagnosis_session SET ${sql.join(sets)} WHERE tenant_id = ${tenantId}::uuid AND id = ${sessionId}::uuid RETURNING *)`];
    const counts: RawBuilder<unknown>[] = [];
    plans.forEach((plan, i) => {
      if (!plan.cte) return counts.push(sql`0`);
      const name = sql.id(`h${i}`);
      ctes.push(sql`${name} AS (${plan.cte()})`);
      counts.push(sql`(SELECT count(*) FROM ${name})::int`);
    });
    const { rows } = await sql<Selectable<SessionTable> & { __cte_rows: number[] }>`WITH ${sql.join(ctes, sql`,\n`)}
      SELECT s.*, ARRAY[${counts.length ? sql.join(counts) : sql`0`}]::int[] AS "__cte_rows" FROM s`.execute(this.database.db);
    const row = rows[0];
    if (!row) return null;
    return { session: toSession(row), cteRows: row.__cte_rows.slice(0, plans.length) };
  }

  async findSession(tenantId: TenantId, sessionId: string): Promise<DiagnosisSessionEntity | null> {
    const row = await this.database.db
      .selectFrom('diagnosis_session')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', sessionId)
      .executeTakeFirst();
    return row ? toSession(row) : null;
  }

  /**
   * Applies the patch and returns the updated row, or null when the session is not this tenant's; with `record`
   * (an operator's change in the audit log, docs/http-edge.md "Audit log") in one transaction.
   */
  async updateSession(tenantId: TenantId, sessionId: string, patch: SessionPatch, record?: (tx: Db) => Promise<void>): Promise<DiagnosisSessionEntity | null> {
    const update = (db: Db) =>
      db
        .updateTable('diagnosis_session')
        .set({ ...sessionColumns(patch), updated_at: sql<Date>`now()` })
        .where('tenant_id', '=', tenantId)
        .where('id', '=', sessionId)
        .executeTakeFirst();
    const updated = record
      ? await this.database.transaction(async (tx) => {
          const result = await update(tx);
          if (result.numUpdatedRows > 0n) await record(tx);
          return result.numUpdatedRows;
        })
      : (await update(this.database.db)).numUpdatedRows;
    if (updated === 0n) return null;
    return this.findSession(tenantId, sessionId);
  }

  async findByIdempotencyKey(tenantId: TenantId, idempotencyKey: string): Promise<DiagnosisSessionEntity | null> {
    const row = await this.database.db
      .selectFrom('diagnosis_session')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('idempotency_key', '=', idempotencyKey)
      .executeTakeFirst();
    return row ? toSession(row) : null;
  }

  async markHooksDone(tenantId: TenantId, sessionId: string): Promise<void> {
    await this.database.db
      .updateTable('diagnosis_session')
      .set({ hooks_done: true, updated_at: sql<Date>`now()` })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', sessionId)
      .execute();
  }

  /**
   * Closes sessions left RUNNING since before `startedBefore` (the process running the turn died) as
   * FAILED with `reason`, oldest first, at most `limit`; returns them. A turn finishing at the same
   * moment wins: only rows still RUNNING are touched, and rows locked by a live update are skipped.
   */
  async failAbandoned(tenantId: TenantId, startedBefore: Date, reason: string, limit: number): Promise<DiagnosisSessionEntity[]> {
    const rows = await this.database.db
      .updateTable('diagnosis_session')
      .set({ status: 'FAILED', outcome: 'FAILED', error: reason, finished_at: sql<Date>`now()`, updated_at: sql<Date>`now()`, hooks_done: false })
      .where('tenant_id', '=', tenantId)
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('diagnosis_session')
          .select('id')
          .where('tenant_id', '=', tenantId)
          .where('status', '=', 'RUNNING')
          .where('created_at', '<', startedBefore)
          .orderBy('created_at')
          .limit(limit)
          .forUpdate()
          .skipLocked(),
      )
      .where('status', '=', 'RUNNING')
      .returning('id')
      .execute();
    return this.findMany(
      tenantId,
      rows.map((r) => r.id),
    );
  }

  /** Finished sessions whose hooks never completed, finished before `finishedBefore`, oldest first. */
  async findHooksPending(tenantId: TenantId, finishedBefore: Date, limit: number): Promise<DiagnosisSessionEntity[]> {
    const rows = await this.database.db
      .selectFrom('diagnosis_session')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('hooks_done', '=', false)
      .where('finished_at', '<', finishedBefore)
      .orderBy('finished_at')
      .limit(limit)
      .execute();
    return rows.map(toSession);
  }

  private async findMany(tenantId: TenantId, ids: string[]): Promise<DiagnosisSessionEntity[]> {
    if (!ids.length) return [];
    const rows = await this.database.db
      .selectFrom('diagnosis_session')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', 'in', ids)
      .orderBy('created_at')
      .execute();
    return rows.map(toSession);
  }

  async insertToolInvocation(tenantId: TenantId, invocation: NewToolInvocation): Promise<ToolInvocationEntity> {
    const row = await this.database.db
      .insertInto('tool_invocation')
      .values({
        tenant_id: tenantId,
        session_id: invocation.sessionId,
        tool_name: invocation.toolName,
        arguments: jsonb(invocation.arguments),
        status: invocation.status,
        result_summary: invocation.resultSummary,
        relevance_level: invocation.relevanceLevel,
        dedup_reason: invocation.dedupReason,
        retrieval_details: jsonb(invocation.retrievalDetails),
        duration_ms: invocation.durationMs,
        error: invocation.error,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toInvocation(row);
  }

  async listToolInvocations(tenantId: TenantId, sessionId: string): Promise<ToolInvocationEntity[]> {
    const rows = await this.database.db
      .selectFrom('tool_invocation')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('session_id', '=', sessionId)
      .orderBy('created_at')
      .execute();
    return rows.map(toInvocation);
  }
}

/**
 * Whether `error` is a foreign-key violation of `constraint`. On a Citus worker the shard's constraint carries the
 * shard id (`<name>_<shard>`), and the coordinator passes on the message but not the constraint field.
 */
function violates(error: unknown, constraint: string): boolean {
  const e = error as { code?: unknown; constraint?: unknown; message?: unknown } | null;
  if (!e || e.code !== '23503') return false;
  const named = (name: unknown) => typeof name === 'string' && (name === constraint || name.startsWith(`${constraint}_`));
  return named(e.constraint) || (typeof e.message === 'string' && new RegExp(`"${constraint}(_\\d+)?"`).test(e.message));
}
