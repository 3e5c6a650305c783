-- Served by idx_knowledge_term_document_chunk (migration 0266), which leads with the same two columns.
DROP INDEX idx_knowledge_term_tenant_document;
