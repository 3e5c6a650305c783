-- Retrieval, hybrid search (docs/retrieval.md): a BM25 lexical index beside the vector index, fusion
-- weights and the fitted grade calibration per tenant.
--
-- knowledge_term holds one posting per (chunk, term) with its BM25 impact (the query-independent part
-- of the score, see libs/retrieval/src/lexical/bm25.ts), so a lookup reads only the best postings of
-- each query term through idx_knowledge_term_impact (an index-only scan) instead of scoring every chunk
-- that shares a common word. Postings belong to the document version (chunk positions of the chunker),
-- not to a vector space: a re-embed leaves them alone. knowledge_term_df and knowledge_lexical_stats
-- keep the tenant's document frequencies and chunk lengths for IDF and length normalisation; they are
-- changed in the same transaction as the postings, terms in sorted order (no deadlocks between imports).

ALTER TABLE knowledge_document ADD COLUMN lexical_version integer NOT NULL DEFAULT 0;
ALTER TABLE knowledge_document ADD COLUMN lexical_length double precision NOT NULL DEFAULT 0;

CREATE TABLE knowledge_term (
  tenant_id uuid NOT NULL,
  term varchar(64) NOT NULL,
  impact real NOT NULL,
  document_id uuid NOT NULL,
  chunk_index integer NOT NULL,
  domain varchar(100) NOT NULL,
  CONSTRAINT fk_knowledge_term_document FOREIGN KEY (document_id) REFERENCES knowledge_document (id) ON DELETE CASCADE
);
CREATE INDEX idx_knowledge_term_impact ON knowledge_term (tenant_id, term, impact DESC, document_id, chunk_index);
CREATE INDEX idx_knowledge_term_document ON knowledge_term (document_id);

CREATE TABLE knowledge_term_df (
  tenant_id uuid NOT NULL,
  term varchar(64) NOT NULL,
  df integer NOT NULL,
  CONSTRAINT pk_knowledge_term_df PRIMARY KEY (tenant_id, term)
);

CREATE TABLE knowledge_lexical_stats (
  tenant_id uuid NOT NULL,
  chunk_count bigint NOT NULL DEFAULT 0,
  total_length double precision NOT NULL DEFAULT 0,
  CONSTRAINT pk_knowledge_lexical_stats PRIMARY KEY (tenant_id)
);

ALTER TABLE retrieval_settings ADD COLUMN fusion jsonb NOT NULL DEFAULT '{}';
ALTER TABLE retrieval_settings ADD COLUMN grading jsonb NOT NULL DEFAULT '{}';
