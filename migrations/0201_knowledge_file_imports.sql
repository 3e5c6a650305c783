-- Files in, the upload's import (docs/documents.md "Upload"): an import made from uploaded files records that
-- it is one (`source`), the upload's Idempotency-Key with a hash of what was sent (a retry answers the first
-- import; the same key with other files is refused), and each file's outcome beyond its status (`detail`:
-- media type, pages, documents and chunks made, warnings). An item of a file import holds the stored file's
-- id in `document` until the job has made its documents.

ALTER TABLE knowledge_import ADD COLUMN source varchar(16) NOT NULL DEFAULT 'documents';
ALTER TABLE knowledge_import ADD CONSTRAINT ck_knowledge_import_source CHECK (source IN ('documents', 'files'));
ALTER TABLE knowledge_import ADD COLUMN idempotency_key varchar(200);
ALTER TABLE knowledge_import ADD COLUMN request_hash char(64);
CREATE UNIQUE INDEX uq_knowledge_import_idempotency ON knowledge_import (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL;

ALTER TABLE knowledge_import_item ADD COLUMN detail jsonb;
