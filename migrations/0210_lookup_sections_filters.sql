-- Files in, the lookup side (docs/retrieval.md "Sections of files", "Metadata filters"; docs/documents.md "Chunks").
--
-- The action memory keys on (file, section) for documents made from files, so one answer does not use up a
-- whole manual: `section_key` is '' for documents posted as JSON (and file chunks without a heading), else the
-- SHA-256 of the section's heading path as JSON. It joins the unique key of a session's memory row.
--
-- Lookups may filter on document metadata (`filter: {key: value | [values]}`), applied in SQL before ranking:
-- `metadata @> {...}` is answered by a GIN index (jsonb_path_ops keeps it small: containment only).
--
-- A disabled chunk is never returned; the lexical search leaves it out through its postings (a disabled chunk
-- has none) and the vector search through the predicate `disabled_at IS NULL`, which the HNSW iterative scan
-- applies while it scans. The chunk list of a document (GET /admin/knowledge/documents/:id/chunks) reads the
-- unique key uq_knowledge_chunk_position (tenant_id, document_id, embedding_model, chunk_index) in order.

ALTER TABLE retrieval_memory ADD COLUMN section_key varchar(64) NOT NULL DEFAULT '';
ALTER TABLE retrieval_memory DROP CONSTRAINT uq_retrieval_memory_doc;
ALTER TABLE retrieval_memory ADD CONSTRAINT uq_retrieval_memory_doc UNIQUE (tenant_id, session_id, file_path, section_key);

CREATE INDEX idx_knowledge_document_metadata ON knowledge_document USING gin (metadata jsonb_path_ops);

ALTER TABLE retrieval_settings ADD COLUMN default_filter jsonb NOT NULL DEFAULT '{}';
