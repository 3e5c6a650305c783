-- Files in (docs/documents.md): documents made from uploaded files (PDF, DOCX, HTML, Markdown, text, FAQ sheets).
--
-- knowledge_file keeps each uploaded file's bytes in the database, so every replica can read it (the import
-- job, the download endpoint) and nothing lives on a replica's disk. A file is stored when its upload is
-- accepted; once the import job has made its document, knowledge_document.file_id points at it. A re-upload of
-- the same file name replaces the document and its file in one transaction.
--
-- Each chunk of a document made from a file records where it came from: `page`/`page_end` (PDF, 1-based) and
-- `section` (the heading path, outermost first, as a JSON array of strings); an operator may disable a chunk
-- (`disabled_at`): a disabled chunk is never returned by a lookup. Chunks of JSON documents leave them null.

CREATE TABLE knowledge_file (
  tenant_id uuid NOT NULL,
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  file_name varchar(1000) NOT NULL,
  media_type varchar(200) NOT NULL,
  byte_size bigint NOT NULL,
  sha256 char(64) NOT NULL,
  bytes bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT pk_knowledge_file PRIMARY KEY (tenant_id, id),
  CONSTRAINT chk_knowledge_file_size CHECK (byte_size >= 0)
);
CREATE INDEX idx_knowledge_file_created ON knowledge_file (tenant_id, created_at);

ALTER TABLE knowledge_document ADD COLUMN file_id uuid;
ALTER TABLE knowledge_document ADD COLUMN media_type varchar(200);
ALTER TABLE knowledge_document ADD COLUMN page_count integer;
ALTER TABLE knowledge_document ADD CONSTRAINT fk_knowledge_document_file
  FOREIGN KEY (tenant_id, file_id) REFERENCES knowledge_file (tenant_id, id);
CREATE INDEX idx_knowledge_document_file ON knowledge_document (tenant_id, file_id) WHERE file_id IS NOT NULL;

ALTER TABLE knowledge_chunk ADD COLUMN page integer;
ALTER TABLE knowledge_chunk ADD COLUMN page_end integer;
ALTER TABLE knowledge_chunk ADD COLUMN section jsonb;
ALTER TABLE knowledge_chunk ADD COLUMN disabled_at timestamptz;
ALTER TABLE knowledge_chunk ADD CONSTRAINT chk_knowledge_chunk_pages
  CHECK ((page IS NULL OR page >= 1) AND (page_end IS NULL OR (page IS NOT NULL AND page_end >= page)));
