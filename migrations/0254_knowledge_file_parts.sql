-- An uploaded file's bytes in parts (docs/documents.md "Storage"; docs/hot-paths.md "A large upload and the
-- event loop"). A 50 MiB file in one `bytea` value cost the API's event loop seconds: the driver copied the whole
-- parameter into one message, and reading it back parsed a 100 MB hex string in one go (3.2 s measured, the
-- main cause of `/health` stalls during a large import on the embedded database). Parts of at most 1 MiB are
-- written one statement each (in the upload's transaction) and read one statement each, so no step of the API's
-- thread handles more than one part. New files keep `knowledge_file.bytes` NULL; files stored before this
-- migration keep their bytes there and are read as before. Parts go with their file (ON DELETE CASCADE).
CREATE TABLE knowledge_file_part (
  tenant_id uuid NOT NULL,
  file_id uuid NOT NULL,
  seq integer NOT NULL,
  bytes bytea NOT NULL,
  CONSTRAINT pk_knowledge_file_part PRIMARY KEY (tenant_id, file_id, seq),
  CONSTRAINT fk_knowledge_file_part_file FOREIGN KEY (tenant_id, file_id) REFERENCES knowledge_file (tenant_id, id) ON DELETE CASCADE,
  CONSTRAINT chk_knowledge_file_part_seq CHECK (seq >= 0)
);
ALTER TABLE knowledge_file ALTER COLUMN bytes DROP NOT NULL;
