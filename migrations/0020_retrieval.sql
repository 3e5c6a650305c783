-- Retrieval (seed 002 + 003): knowledge documents, chunks with embeddings, per-session action memory,
-- per-tenant retrieval settings.
--
-- Embedding dimension is deliberately NOT fixed here: knowledge_chunk.embedding is an untyped `vector`,
-- every row records its vector space (embedding_model = EmbeddingProvider.id) and dimension, and the
-- HNSW index is a partial expression index per dimension,
--   CREATE INDEX idx_knowledge_chunk_hnsw_<dim> ON knowledge_chunk
--     USING hnsw ((embedding::vector(<dim>)) vector_l2_ops) WHERE embedding_dim = <dim>,
-- created at boot by VectorIndexService for the configured provider. Switching provider or dimension
-- therefore needs no migration edit: the new index is built, chunks are re-embedded by the
-- `retrieval.reembed` job, and lookups only ever compare vectors of the query's own space.

CREATE TABLE knowledge_document (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL,
  domain varchar(100) NOT NULL,
  file_path varchar(1000) NOT NULL,
  title varchar(500) NOT NULL,
  content text NOT NULL,
  keywords jsonb NOT NULL DEFAULT '[]',
  metadata jsonb NOT NULL DEFAULT '{}',
  content_hash char(64) NOT NULL,
  chunk_count integer NOT NULL DEFAULT 0,
  version integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT pk_knowledge_document PRIMARY KEY (id),
  CONSTRAINT uq_knowledge_document_path UNIQUE (tenant_id, file_path),
  CONSTRAINT chk_knowledge_document_counts CHECK (chunk_count >= 0 AND version >= 1)
);
CREATE INDEX idx_knowledge_document_tenant_created ON knowledge_document (tenant_id, created_at, id);
CREATE INDEX idx_knowledge_document_tenant_domain ON knowledge_document (tenant_id, domain, created_at, id);

CREATE TABLE knowledge_chunk (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL,
  document_id uuid NOT NULL,
  domain varchar(100) NOT NULL,
  chunk_index integer NOT NULL,
  content text NOT NULL,
  embedding vector NOT NULL,
  embedding_model varchar(200) NOT NULL,
  embedding_dim integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT pk_knowledge_chunk PRIMARY KEY (id),
  CONSTRAINT uq_knowledge_chunk_position UNIQUE (document_id, embedding_model, chunk_index),
  CONSTRAINT chk_knowledge_chunk_dim CHECK (embedding_dim > 0 AND chunk_index >= 0),
  CONSTRAINT fk_knowledge_chunk_document FOREIGN KEY (document_id) REFERENCES knowledge_document (id) ON DELETE CASCADE
);
CREATE INDEX idx_knowledge_chunk_tenant_model ON knowledge_chunk (tenant_id, embedding_model, domain);

CREATE TABLE retrieval_memory (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL,
  session_id varchar(200) NOT NULL,
  domain varchar(100) NOT NULL,
  file_path varchar(1000) NOT NULL,
  relevance_level varchar(20) NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  CONSTRAINT pk_retrieval_memory PRIMARY KEY (id),
  CONSTRAINT uq_retrieval_memory_doc UNIQUE (tenant_id, session_id, file_path),
  CONSTRAINT chk_retrieval_memory_level CHECK (relevance_level IN ('PRECISE', 'HIGHLY_RELEVANT', 'REFERENCE'))
);
CREATE INDEX idx_retrieval_memory_expires ON retrieval_memory (expires_at);

CREATE TABLE retrieval_settings (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL,
  normalization jsonb NOT NULL DEFAULT '{}',
  memory_ttl_seconds integer NOT NULL DEFAULT 86400,
  chunk_size integer NOT NULL DEFAULT 512,
  chunk_overlap integer NOT NULL DEFAULT 64,
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT pk_retrieval_settings PRIMARY KEY (id),
  CONSTRAINT uq_retrieval_settings_tenant UNIQUE (tenant_id),
  CONSTRAINT chk_retrieval_settings_values CHECK (memory_ttl_seconds >= 60 AND chunk_size >= 64 AND chunk_overlap >= 0 AND chunk_overlap < chunk_size)
);
