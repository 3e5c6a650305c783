-- "The tenant's documents being written" (migration 0263), asked by every lookup and usually none: a partial index.
-- A migration of its own: Citus sends a CREATE INDEX on a distributed table to the workers with the text it came in,
-- and a text of several statements cannot be sent that way ("cannot insert multiple commands into a prepared
-- statement", docs/SCALING.md "Running on Citus").
CREATE INDEX idx_knowledge_document_writing ON knowledge_document (tenant_id, id) WHERE writing;
