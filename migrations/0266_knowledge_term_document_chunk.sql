-- The postings of a range of a document's chunks (a hidden document removed in groups, docs/hot-paths.md "A large
-- document's removal in groups") found by the index, not by reading all of the document's postings for each group:
-- chunk_index joins (tenant_id, document_id), whose statements the wider index serves as before (migration 0253; the
-- narrower index goes in 0267). A migration of its own: Citus sends a CREATE INDEX on a distributed table to the workers
-- with the text it came in, which must be one statement (docs/SCALING.md "Running on Citus").
CREATE INDEX idx_knowledge_term_document_chunk ON knowledge_term (tenant_id, document_id, chunk_index);
