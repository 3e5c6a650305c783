import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { TenantId } from '@arbiter/common';
import { runSucceededSql, type SessionReference } from '@arbiter/sessions';

/** Read-only SQL of the chat pipeline over the sessions tables (the sessions lib owns their writes). */
@Injectable()
export class ChatRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * The knowledge documents already cited to the user in this conversation (the references of its
   * earlier answered turns), by file path, each with its strongest stored reference: the
   * conversation level of the action memory, and what an "already provided" reply points back to.
   */
  async citedInConversation(tenantId: TenantId, conversationId: string, excludeSessionId: string): Promise<Map<string, SessionReference>> {
    const rows: { file_path: string; document_id: string | null; title: string | null; score: number | null }[] = await this.ds.query(
      `SELECT DISTINCT ON (r->>'filePath') r->>'filePath' AS file_path, r->>'documentId' AS document_id, r->>'title' AS title,
              CASE WHEN jsonb_typeof(r->'score') = 'number' THEN (r->>'score')::float8 END AS score
         FROM diagnosis_session s, jsonb_array_elements(s.source_references) r
        WHERE s.tenant_id = $1 AND s.conversation_id = $2 AND s.id <> $3
          AND ${runSucceededSql('s')} AND r ? 'filePath'
        ORDER BY r->>'filePath', score DESC NULLS LAST`,
      [tenantId, conversationId, excludeSessionId],
    );
    return new Map(
      rows.map((r) => [
        r.file_path,
        { filePath: r.file_path, score: r.score ?? 0, ...(r.document_id !== null ? { documentId: r.document_id } : {}), ...(r.title !== null ? { title: r.title } : {}) },
      ]),
    );
  }
}
