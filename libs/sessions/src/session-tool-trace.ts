import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import { sql, type RawBuilder } from '@arbiter/database';
import type { NewToolInvocation } from './sessions.repository.js';

/** The channel of the sessions that stand for external agents' runs (seen only through their lookups). */
export const EXTERNAL_CHANNEL = 'external';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Namespace of the name-based (v5) ids of external sessions and their conversations. */
const NAMESPACE = Buffer.from('5b0c3f7e8d2a4e61a9f04c1d2b3e4f50', 'hex');

/** RFC 4122 version-5 (SHA-1, name-based) UUID of `name` in this lib's namespace. */
function nameUuid(name: string): string {
  const bytes = createHash('sha1').update(NAMESPACE).update(name, 'utf8').digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The session (and conversation) standing for an external agent's run `externalId` in this tenant.
 * Derived from the tenant and the id, so the same external id of another tenant is another session,
 * and an id that happens to be another tenant's session id never reaches that session.
 */
export function externalSessionIds(tenantId: TenantId, externalId: string): { sessionId: string; conversationId: string } {
  return { sessionId: nameUuid(`session:${tenantId}:${externalId}`), conversationId: nameUuid(`conversation:${tenantId}:${externalId}`) };
}

export type TracedInvocation = Omit<NewToolInvocation, 'sessionId'>;

/**
 * The sessions lib's part of a lookup's write (docs/hot-paths.md "Chat turn"): `tool_invocation` and
 * `diagnosis_session` are this lib's tables; the retrieval lib embeds these CTEs in its own statement
 * so a lookup stays one write round trip.
 *
 * Every lookup leaves a `tool_invocation` row (docs/spec/retrieval.md): on the tenant's session when `sessionId`
 * is one, else on the tenant's external session for that id, created on first sight (channel
 * `external`, status PENDING: a run Arbiter did not execute and that has no outcome; it counts the
 * lookups as tool calls and is marked as having searched the knowledge base).
 */
@Injectable()
export class SessionToolTrace {
  /**
   * CTEs named `ti_conv`, `ti_ext`, `ti_inv`; `ti_inv` returns the invocation's `id` and `session_id`. A `sql`
   * fragment: the embedding statement numbers its values (docs/data-layer.md).
   *
   * Each `INSERT … SELECT` reads the tenant's own session by its key in a subquery of its own rather than from a shared
   * CTE: on Citus an `INSERT … SELECT` that reads a CTE's result makes the coordinator copy that result to every
   * worker, so the lookup's write opened a transaction on each (docs/SCALING.md "Hot paths on one shard").
   */
  invocationCtes(tenantId: TenantId, sessionId: string, query: string, invocation: TracedInvocation): RawBuilder<unknown> {
    const tenant = sql`${tenantId}::uuid`;
    const own = UUID.test(sessionId) ? sql`${sessionId}::uuid` : sql`NULL::uuid`;
    const ext = externalSessionIds(tenantId, sessionId);
    const extSession = sql`${ext.sessionId}::uuid`;
    const extConversation = sql`${ext.conversationId}::uuid`;
    const channel = sql`${EXTERNAL_CHANNEL}`;
    const json = (value: unknown) => sql`${value === null || value === undefined ? null : JSON.stringify(value)}::jsonb`;
    const ownSession = sql`(SELECT id FROM diagnosis_session WHERE tenant_id = ${tenant} AND id = ${own})`;
    return sql`ti_conv AS (INSERT INTO conversation (id, tenant_id, channel) SELECT ${extConversation}, ${tenant}, ${channel}
                   WHERE NOT EXISTS ${ownSession} ON CONFLICT ON CONSTRAINT pk_conversation DO NOTHING RETURNING id),
      ti_ext AS (INSERT INTO diagnosis_session (id, tenant_id, conversation_id, channel, query, status, knowledge_searched, step_count, tool_call_count, hooks_done, route_trace)
                  SELECT ${extSession}, ${tenant}, ${extConversation}, ${channel}, ${query.slice(0, 4000)}, 'PENDING', true, 1, 1, true, ${json({ externalSessionId: sessionId })}
                   WHERE NOT EXISTS ${ownSession}
                  -- EXCLUDED.updated_at is the insert's now(): no now() in DO UPDATE (Citus, docs/SCALING.md "Running on Citus").
                  ON CONFLICT ON CONSTRAINT pk_diagnosis_session DO UPDATE
                    SET step_count = diagnosis_session.step_count + 1, tool_call_count = diagnosis_session.tool_call_count + 1, updated_at = EXCLUDED.updated_at
                    WHERE diagnosis_session.tenant_id = EXCLUDED.tenant_id AND diagnosis_session.channel = EXCLUDED.channel
                  RETURNING id),
      -- INSERT … SELECT, not VALUES: Citus refuses a subquery in an INSERT's VALUES (docs/SCALING.md "Running on Citus").
      ti_inv AS (INSERT INTO tool_invocation (tenant_id, session_id, tool_name, arguments, status, result_summary, relevance_level, dedup_reason, retrieval_details, duration_ms, error)
                  SELECT ${tenant}, coalesce(${ownSession}, ${extSession}), ${invocation.toolName}, ${json(invocation.arguments)}, ${invocation.status},
                         ${invocation.resultSummary}, ${invocation.relevanceLevel}, ${invocation.dedupReason}, ${json(invocation.retrievalDetails)},
                         ${invocation.durationMs}::int, ${invocation.error}
                  RETURNING id, session_id)`;
  }
}
