-- Large knowledge imports run as a resumable job (README, Faults and outages): the request stores the
-- validated documents here and answers 202; the `retrieval.import` job writes them in batches, recording
-- each item's outcome, so a crash resumes at the first item without one.
CREATE TABLE knowledge_import (
  tenant_id uuid NOT NULL,
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  job_id uuid,
  total integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT pk_knowledge_import PRIMARY KEY (tenant_id, id)
);
CREATE INDEX idx_knowledge_import_created ON knowledge_import (created_at);

CREATE TABLE knowledge_import_item (
  tenant_id uuid NOT NULL,
  import_id uuid NOT NULL,
  -- the item's position in the request body
  seq integer NOT NULL,
  file_path varchar(1000),
  -- the validated, normalised document; null once written or when the item failed validation
  document jsonb,
  -- null while pending
  status varchar(16),
  document_id uuid,
  error jsonb,
  CONSTRAINT pk_knowledge_import_item PRIMARY KEY (tenant_id, import_id, seq),
  CONSTRAINT fk_knowledge_import_item_import FOREIGN KEY (tenant_id, import_id) REFERENCES knowledge_import (tenant_id, id) ON DELETE CASCADE,
  CONSTRAINT ck_knowledge_import_item_status CHECK (status IS NULL OR status IN ('created', 'updated', 'unchanged', 'failed'))
);
CREATE INDEX idx_knowledge_import_item_pending ON knowledge_import_item (tenant_id, import_id, seq) WHERE status IS NULL;
