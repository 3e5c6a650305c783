-- Issue 14 item 3 (libs/learning): a fit of the routing thresholds on a labelled set (docs/learning.md "Fit").
-- Requested by POST /admin/intent-config/fit, computed by the `learning.intent-fit` job, read by
-- GET /admin/intent-config/fits/:id. The labelled set is named by id with its name and version copied (no
-- foreign key: a fit's report outlives the deletion of the set it was computed on).
CREATE TABLE intent_fit (
  tenant_id uuid NOT NULL,
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  labelled_set_id uuid NOT NULL,
  labelled_set_name varchar(100) NOT NULL,
  labelled_set_version integer NOT NULL,
  targets jsonb NOT NULL,
  status varchar(10) NOT NULL DEFAULT 'queued',
  config_version bigint,
  result jsonb,
  error text,
  job_run_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  CONSTRAINT pk_intent_fit PRIMARY KEY (tenant_id, id),
  CONSTRAINT chk_intent_fit_status CHECK (status IN ('queued', 'running', 'succeeded', 'failed'))
);
CREATE INDEX idx_intent_fit_tenant_created ON intent_fit (tenant_id, created_at, id);
