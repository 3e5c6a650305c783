-- An upload's bytes are written before its transaction, one part per statement, so that a large upload does not hold
-- the embedded database's one backend for the whole of its bytes (docs/hot-paths.md "A large file's write in groups":
-- 1.16 s for 50 MiB, every other tenant's lookups waiting). `receiving` marks a file whose upload has not committed
-- yet: the upload's transaction clears it with the import that references the file; a file still `receiving` long
-- after (the process died mid-upload) is deleted by the tenant's next upload.
ALTER TABLE knowledge_file ADD COLUMN receiving boolean NOT NULL DEFAULT false;
