import { Injectable } from '@nestjs/common';
import { runSucceededSql, type SessionReference, type SessionStartRead } from '@arbiter/sessions';

interface CitedRow {
  file_path: string;
  document_id: string | null;
  title: string | null;
  score: number | null;
}

/** Read-only SQL of the chat pipeline over the sessions tables (the sessions lib owns their writes). */
@Injectable()
export class ChatRepository {
  /**
   * The knowledge documents already cited to the user in this conversation (the references of its
   * earlier answered turns), by file path, each with its strongest stored reference: the conversation
   * level of the action memory, and what an "already provided" reply points back to. A scalar json
   * subquery read by the session start statement (`SessionsService.startReading`, docs/hot-paths.md
   * "Chat turn"); `citedMap` turns its value into the map.
   */
  readonly citedInConversation: SessionStartRead = (_p, row) =>
    `SELECT coalesce(json_agg(json_build_object('file_path', x.file_path, 'document_id', x.document_id, 'title', x.title, 'score', x.score)), '[]'::json)
       FROM (SELECT DISTINCT ON (r->>'filePath') r->>'filePath' AS file_path, r->>'documentId' AS document_id, r->>'title' AS title,
                    CASE WHEN jsonb_typeof(r->'score') = 'number' THEN (r->>'score')::float8 END AS score
               FROM diagnosis_session s, jsonb_array_elements(s.source_references) r
              WHERE s.tenant_id = ${row.tenantId} AND s.conversation_id = ${row.conversationId} AND s.id <> ${row.sessionId}
                AND ${runSucceededSql('s')} AND r ? 'filePath'
              ORDER BY r->>'filePath', score DESC NULLS LAST) x`;

  citedMap(value: unknown): Map<string, SessionReference> {
    const rows = Array.isArray(value) ? (value as CitedRow[]) : [];
    return new Map(
      rows.map((r) => [
        r.file_path,
        {
          filePath: r.file_path,
          score: r.score ?? 0,
          ...(r.document_id !== null ? { documentId: r.document_id } : {}),
          ...(r.title !== null ? { title: r.title } : {}),
        },
      ]),
    );
  }
}
