import { Injectable } from '@nestjs/common';
import { AppConfig } from '@arbiter/config';
import { sql, type Expression } from '@arbiter/database';
import { candidateMemoryKey } from '@arbiter/retrieval';
import { runSucceededSql, type SessionReference, type SessionStartRead } from '@arbiter/sessions';
import { pendingClarification, type PendingClarification } from './clarify-state.js';
import type { PriorTurn } from './follow-up-rewrite.js';

interface TurnRow {
  message: string | null;
  query: string | null;
  topic: string | null;
  answer: string | null;
  intent: string | null;
  domain: string | null;
}

interface CitedRow {
  file_path: string;
  file_name?: string | null;
  section?: string[] | null;
  page?: number | null;
  page_end?: number | null;
  document_id: string | null;
  title: string | null;
  score: number | null;
}

/** Read-only SQL of the chat pipeline over the sessions tables (the sessions lib owns their writes), as `sql` fragments (docs/data-layer.md). */
@Injectable()
export class ChatRepository {
  constructor(private readonly config: AppConfig) {}

  /**
   * The knowledge documents already cited to the user in this conversation (the references of its
   * earlier answered turns), by file path, each with its strongest stored reference: the conversation
   * level of the action memory, and what an "already provided" reply points back to. A scalar json
   * subquery read by the session start statement (`SessionsService.startReading`, docs/hot-paths.md
   * "Chat turn"); `citedMap` turns its value into the map.
   */
  readonly citedInConversation: SessionStartRead = (row) =>
    sql`SELECT coalesce(json_agg(json_build_object('file_path', x.file_path, 'document_id', x.document_id, 'title', x.title, 'score', x.score,
                                                'file_name', x.file_name, 'section', x.section, 'page', x.page, 'page_end', x.page_end)), '[]'::json)
       FROM (SELECT DISTINCT ON (r->>'filePath', r->>'fileName', r->'section') r->>'filePath' AS file_path, r->>'documentId' AS document_id, r->>'title' AS title,
                    CASE WHEN jsonb_typeof(r->'score') = 'number' THEN (r->>'score')::float8 END AS score,
                    r->>'fileName' AS file_name, CASE WHEN jsonb_typeof(r->'section') = 'array' THEN r->'section' END AS section,
                    CASE WHEN jsonb_typeof(r->'page') = 'number' THEN (r->>'page')::int END AS page,
                    CASE WHEN jsonb_typeof(r->'pageEnd') = 'number' THEN (r->>'pageEnd')::int END AS page_end
               FROM diagnosis_session s, jsonb_array_elements(s.source_references) r
              WHERE s.tenant_id = ${row.tenantId} AND s.conversation_id = ${row.conversationId} AND s.id <> ${row.sessionId}
                AND ${runSucceededSql('s')} AND r ? 'filePath'
              ORDER BY r->>'filePath', r->>'fileName', r->'section', score DESC NULLS LAST) x`;

  /**
   * The clarifying question the conversation's previous turn asked, if it asked one (docs/chat-clients.md
   * "Clarification"): `route_trace.chat.clarify` of its latest other session when that turn succeeded on the
   * `clarify` branch, else null. Stored with the turn, so any replica resolves the answer.
   */
  readonly clarifyInConversation: SessionStartRead = (row) =>
    sql`SELECT CASE WHEN ${runSucceededSql('q')} AND q.route_trace->'chat'->>'branch' = 'clarify' THEN q.route_trace->'chat'->'clarify' END
       FROM diagnosis_session q
      WHERE q.tenant_id = ${row.tenantId} AND q.conversation_id = ${row.conversationId} AND q.id <> ${row.sessionId}
      ORDER BY q.created_at DESC, q.id DESC LIMIT 1`;

  /**
   * The conversation's last answered turns, newest first, at most `CHAT_HISTORY_TURNS` (docs/chat-clients.md
   * "Conversations"): the message, the standalone question and topic it was resolved to (`route_trace.chat.followUp`;
   * for the answer to a clarifying question, the question it clarified; else the message), the reply, the routed intent
   * and the domain its first lookup answered from.
   */
  readonly turnsInConversation: SessionStartRead = (row) =>
    sql`SELECT coalesce(json_agg(json_build_object('message', t.query,
                                                'query', coalesce(t.route_trace->'chat'->'followUp'->>'query',
                                                                  CASE WHEN t.route_trace->'chat'->'clarify'->>'stage' = 'resolved'
                                                                       THEN t.route_trace->'chat'->'clarify'->>'question' END),
                                                'topic', t.route_trace->'chat'->'followUp'->>'topic', 'answer', t.answer, 'intent', t.intent,
                                                'domain', t.route_trace->'chat'->'lookups'->0->>'resultDomain') ORDER BY t.created_at DESC, t.id DESC), '[]'::json)
       FROM (SELECT q.query, q.answer, q.intent, q.route_trace, q.created_at, q.id
               FROM diagnosis_session q
              WHERE q.tenant_id = ${row.tenantId} AND q.conversation_id = ${row.conversationId} AND q.id <> ${row.sessionId} AND ${runSucceededSql('q')}
              ORDER BY q.created_at DESC, q.id DESC LIMIT ${Math.max(1, this.config.chat.historyTurns)}::int) t`;

  /** What a continued conversation's session start reads with it (one statement, docs/hot-paths.md "Chat turn"). */
  readonly conversationRead: SessionStartRead = (row) =>
    sql`SELECT json_build_object('cited', (${this.citedInConversation(row)}), 'clarify', (${this.clarifyInConversation(row)}),
                              'turns', (${this.turnsInConversation(row)}))`;

  /**
   * What the turn's session start reads with it (one statement, docs/hot-paths.md "Chat turn"): the tenant's retrieval
   * settings row (`settings`, for the turn's first lookup: `LookupOptions.freshSession`) and, in a continued
   * conversation, `conversationRead`.
   */
  turnRead(continued: boolean, settings: Expression<unknown>): SessionStartRead {
    return (row) =>
      continued
        ? sql`SELECT json_build_object('settings', ${settings}, 'conversation', (${this.conversationRead(row)}))`
        : sql`SELECT json_build_object('settings', ${settings})`;
  }

  /** `turnRead`'s value: the settings row and, of `conversationRead`, the cited documents (`citedMap`), the pending clarification and the earlier turns (oldest first). */
  turnState(value: unknown): { settings: unknown; cited: Map<string, SessionReference>; clarify: PendingClarification | null; turns: PriorTurn[] } {
    const read = value && typeof value === 'object' ? (value as { settings?: unknown; conversation?: unknown }) : {};
    return { settings: read.settings ?? null, ...this.conversationState(read.conversation) };
  }

  /** `conversationRead`'s value: the cited documents (`citedMap`), the pending clarification and the earlier turns (oldest first). */
  conversationState(value: unknown): { cited: Map<string, SessionReference>; clarify: PendingClarification | null; turns: PriorTurn[] } {
    const v = value && typeof value === 'object' ? (value as { cited?: unknown; clarify?: unknown; turns?: unknown }) : {};
    return { cited: this.citedMap(v.cited), clarify: pendingClarification(v.clarify), turns: this.priorTurns(v.turns) };
  }

  priorTurns(value: unknown): PriorTurn[] {
    const rows = Array.isArray(value) ? (value as TurnRow[]) : [];
    return rows
      .filter((r) => typeof r.message === 'string')
      .map((r) => {
        const message = r.message ?? '';
        const query = r.query ?? message;
        return { message, query, topic: r.topic ?? query, answer: r.answer, intent: r.intent, domain: r.domain };
      })
      .reverse();
  }

  citedMap(value: unknown): Map<string, SessionReference> {
    const rows = Array.isArray(value) ? (value as CitedRow[]) : [];
    return new Map(
      rows.map((r) => [
        // The action memory's key: a file's sections are cited one by one (docs/retrieval.md "Sections of files").
        candidateMemoryKey({ filePath: r.file_path, domain: '', source: 'L1', fileName: r.file_name ?? null, section: r.section ?? null }),
        {
          filePath: r.file_path,
          score: r.score ?? 0,
          ...(r.document_id !== null ? { documentId: r.document_id } : {}),
          ...(r.title !== null ? { title: r.title } : {}),
          ...(r.file_name ? { fileName: r.file_name, page: r.page ?? null, pageEnd: r.page_end ?? null, section: r.section ?? null } : {}),
        },
      ]),
    );
  }
}
