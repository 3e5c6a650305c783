import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { TenantId } from '@arbiter/common';

/** Read-only SQL of the chat pipeline over the sessions tables (the sessions lib owns their writes). */
@Injectable()
export class ChatRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * File paths of the knowledge documents already cited to the user in this conversation (the
   * references of its earlier answered turns): the conversation level of the action memory.
   */
  async citedInConversation(tenantId: TenantId, conversationId: string, excludeSessionId: string): Promise<Set<string>> {
    const rows: { file_path: string }[] = await this.ds.query(
      `SELECT DISTINCT r->>'filePath' AS file_path
         FROM diagnosis_session s, jsonb_array_elements(s.source_references) r
        WHERE s.tenant_id = $1 AND s.conversation_id = $2 AND s.id <> $3
          AND s.status IN ('SUCCESS', 'BAD_CASE') AND r ? 'filePath'`,
      [tenantId, conversationId, excludeSessionId],
    );
    return new Set(rows.map((r) => r.file_path));
  }
}
