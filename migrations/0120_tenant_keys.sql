-- Distribution-ready keys (docs/SCALING.md): every primary key, unique constraint and foreign key of a
-- table with a tenant_id column includes tenant_id, so the schema can be distributed by tenant_id
-- (e.g. Citus create_distributed_table(..., 'tenant_id')) without changing a constraint. `tenant` and
-- `api_key` stay reference tables and keep their keys. Ids stay globally unique uuids as before: only
-- the constraints change (names kept, so ON CONFLICT ON CONSTRAINT and the entities still name them).
-- libs/database/src/tenant-keys.int-spec.ts reads the catalog and fails on a key without tenant_id.

-- 1. Foreign keys first: they depend on the unique indexes of the keys they reference.
ALTER TABLE diagnosis_session DROP CONSTRAINT fk_session_conversation;
ALTER TABLE tool_invocation DROP CONSTRAINT fk_tool_invocation_session;
ALTER TABLE session_feedback DROP CONSTRAINT fk_session_feedback_session;
ALTER TABLE coverage_decision DROP CONSTRAINT fk_coverage_decision_session;
ALTER TABLE intent_rule_embedding DROP CONSTRAINT fk_intent_rule_embedding_rule;
ALTER TABLE knowledge_chunk DROP CONSTRAINT fk_knowledge_chunk_document;
ALTER TABLE knowledge_term DROP CONSTRAINT fk_knowledge_term_document;

-- 2. Primary keys: (tenant_id, id), or tenant_id first in the natural key.
ALTER TABLE conversation DROP CONSTRAINT pk_conversation, ADD CONSTRAINT pk_conversation PRIMARY KEY (tenant_id, id);
ALTER TABLE diagnosis_session DROP CONSTRAINT pk_diagnosis_session, ADD CONSTRAINT pk_diagnosis_session PRIMARY KEY (tenant_id, id);
ALTER TABLE tool_invocation DROP CONSTRAINT pk_tool_invocation, ADD CONSTRAINT pk_tool_invocation PRIMARY KEY (tenant_id, id);
ALTER TABLE intent_rule DROP CONSTRAINT pk_intent_rule, ADD CONSTRAINT pk_intent_rule PRIMARY KEY (tenant_id, id);
ALTER TABLE intent_rule_embedding DROP CONSTRAINT pk_intent_rule_embedding, ADD CONSTRAINT pk_intent_rule_embedding PRIMARY KEY (tenant_id, id);
ALTER TABLE intent_tenant_config DROP CONSTRAINT pk_intent_tenant_config, ADD CONSTRAINT pk_intent_tenant_config PRIMARY KEY (tenant_id, id);
ALTER TABLE knowledge_document DROP CONSTRAINT pk_knowledge_document, ADD CONSTRAINT pk_knowledge_document PRIMARY KEY (tenant_id, id);
ALTER TABLE knowledge_chunk DROP CONSTRAINT pk_knowledge_chunk, ADD CONSTRAINT pk_knowledge_chunk PRIMARY KEY (tenant_id, id);
ALTER TABLE retrieval_memory DROP CONSTRAINT pk_retrieval_memory, ADD CONSTRAINT pk_retrieval_memory PRIMARY KEY (tenant_id, id);
ALTER TABLE retrieval_settings DROP CONSTRAINT pk_retrieval_settings, ADD CONSTRAINT pk_retrieval_settings PRIMARY KEY (tenant_id, id);
ALTER TABLE session_feedback DROP CONSTRAINT pk_session_feedback, ADD CONSTRAINT pk_session_feedback PRIMARY KEY (tenant_id, id);
ALTER TABLE case_library DROP CONSTRAINT pk_case_library, ADD CONSTRAINT pk_case_library PRIMARY KEY (tenant_id, id);
ALTER TABLE coverage_decision DROP CONSTRAINT pk_coverage_decision,
  ADD CONSTRAINT pk_coverage_decision PRIMARY KEY (tenant_id, session_id, evaluator_version);
ALTER TABLE job_run DROP CONSTRAINT pk_job_run, ADD CONSTRAINT pk_job_run PRIMARY KEY (tenant_id, id);

-- 3. Unique constraints: tenant_id first. A session id, a rule id or a document id is unique on its
-- own already (uuid), so each of these admits exactly the rows it admitted before.
ALTER TABLE intent_rule_embedding DROP CONSTRAINT uq_intent_rule_embedding_rule_model,
  ADD CONSTRAINT uq_intent_rule_embedding_rule_model UNIQUE (tenant_id, rule_id, embedding_model);
ALTER TABLE knowledge_chunk DROP CONSTRAINT uq_knowledge_chunk_position,
  ADD CONSTRAINT uq_knowledge_chunk_position UNIQUE (tenant_id, document_id, embedding_model, chunk_index);
ALTER TABLE session_feedback DROP CONSTRAINT uq_session_feedback_session, ADD CONSTRAINT uq_session_feedback_session UNIQUE (tenant_id, session_id);
ALTER TABLE case_library DROP CONSTRAINT uq_case_library_session, ADD CONSTRAINT uq_case_library_session UNIQUE (tenant_id, session_id);
-- schedule_key is job@slot@tenant: unique per tenant is the same set of rows.
ALTER TABLE job_run DROP CONSTRAINT uq_job_run_schedule_key, ADD CONSTRAINT uq_job_run_schedule_key UNIQUE (tenant_id, schedule_key);

-- 4. Foreign keys again, tenant_id to tenant_id: a row can only reference a row of its own tenant, and
-- both rows live on the same shard when the tables are distributed (co-located) by tenant_id.
ALTER TABLE diagnosis_session ADD CONSTRAINT fk_session_conversation
  FOREIGN KEY (tenant_id, conversation_id) REFERENCES conversation (tenant_id, id) ON DELETE CASCADE;
ALTER TABLE tool_invocation ADD CONSTRAINT fk_tool_invocation_session
  FOREIGN KEY (tenant_id, session_id) REFERENCES diagnosis_session (tenant_id, id) ON DELETE CASCADE;
ALTER TABLE session_feedback ADD CONSTRAINT fk_session_feedback_session
  FOREIGN KEY (tenant_id, session_id) REFERENCES diagnosis_session (tenant_id, id) ON DELETE CASCADE;
ALTER TABLE coverage_decision ADD CONSTRAINT fk_coverage_decision_session
  FOREIGN KEY (tenant_id, session_id) REFERENCES diagnosis_session (tenant_id, id) ON DELETE CASCADE;
ALTER TABLE intent_rule_embedding ADD CONSTRAINT fk_intent_rule_embedding_rule
  FOREIGN KEY (tenant_id, rule_id) REFERENCES intent_rule (tenant_id, id) ON DELETE CASCADE;
ALTER TABLE knowledge_chunk ADD CONSTRAINT fk_knowledge_chunk_document
  FOREIGN KEY (tenant_id, document_id) REFERENCES knowledge_document (tenant_id, id) ON DELETE CASCADE;
ALTER TABLE knowledge_term ADD CONSTRAINT fk_knowledge_term_document
  FOREIGN KEY (tenant_id, document_id) REFERENCES knowledge_document (tenant_id, id) ON DELETE CASCADE;
