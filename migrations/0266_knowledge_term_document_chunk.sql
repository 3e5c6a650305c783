-- The postings of a range of a document's chunks (a hidden document removed in groups, docs/hot-paths.md "A large
-- document's removal in groups") found by the index, not by reading all of the document's postings for each group:
-- chunk_index joins (tenant_id, document_id), whose statements the wider index serves as before (migration 0253).
CREATE INDEX idx_knowledge_term_document_chunk ON knowledge_term (tenant_id, document_id, chunk_index);
DROP INDEX idx_knowledge_term_tenant_document;
