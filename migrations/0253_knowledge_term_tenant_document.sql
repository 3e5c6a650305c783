-- The postings of a document are found by (tenant_id, document_id) (docs/hot-paths.md "A neighbour's data must
-- not slow a tenant's lookup"). With only (document_id) indexed, a statement naming both the tenant and the
-- documents was planned on idx_knowledge_term_impact (tenant_id leads) where PGlite has no statistics: every
-- document's write scanned all of the tenant's postings, so an import's writes slowed as the tenant grew
-- (14.7 ms a write at 10,000 documents). The composite index also serves the foreign key's cascade.
CREATE INDEX idx_knowledge_term_tenant_document ON knowledge_term (tenant_id, document_id);
DROP INDEX idx_knowledge_term_document;
