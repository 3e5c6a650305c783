-- Issue 14, items 1–2 (libs/learning): every routing decision on record, and labelled data.
-- Distribution-ready from the start: every primary key, unique constraint and foreign key leads with tenant_id.

-- One row per routing decision (POST /ai/intent/route and chat turns), written in batches off the request
-- path by the learning lib's DecisionLogWriter (docs/decision-log.md). The id and created_at are the decision's,
-- set by the writer, so a retried batch writes each row once (ON CONFLICT DO NOTHING).
CREATE TABLE decision_log (
  tenant_id uuid NOT NULL,
  id uuid NOT NULL,
  created_at timestamptz NOT NULL,
  source varchar(8) NOT NULL,
  session_id uuid,
  message text NOT NULL,
  config_version bigint NOT NULL,
  rules_version bigint NOT NULL,
  intent varchar(100),
  reason varchar(32) NOT NULL,
  need_clarify boolean NOT NULL,
  confidence double precision NOT NULL,
  candidates jsonb NOT NULL DEFAULT '[]',
  trace jsonb NOT NULL DEFAULT '{}',
  latency_ms double precision NOT NULL,
  CONSTRAINT pk_decision_log PRIMARY KEY (tenant_id, id),
  CONSTRAINT chk_decision_log_source CHECK (source IN ('route', 'chat'))
);
-- The list (newest first, keyset over (created_at, id)) and the retention cleanup (oldest first).
CREATE INDEX idx_decision_log_tenant_created ON decision_log (tenant_id, created_at, id);

-- Per-tenant decision-log settings; no row = the defaults (retention 30 days).
CREATE TABLE decision_log_settings (
  tenant_id uuid NOT NULL,
  retention_days integer NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT pk_decision_log_settings PRIMARY KEY (tenant_id),
  CONSTRAINT chk_decision_log_settings_retention CHECK (retention_days >= 1 AND retention_days <= 3650)
);

-- A labelled set: an upload (each upload of a name is a new version) or the tenant's review set (labels
-- operators put on logged decisions; one per tenant, name 'review', version 1, growing).
CREATE TABLE labelled_set (
  tenant_id uuid NOT NULL,
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  name varchar(100) NOT NULL,
  version integer NOT NULL,
  kind varchar(8) NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT pk_labelled_set PRIMARY KEY (tenant_id, id),
  CONSTRAINT uq_labelled_set_name_version UNIQUE (tenant_id, name, version),
  CONSTRAINT chk_labelled_set_kind CHECK (kind IN ('upload', 'review')),
  CONSTRAINT chk_labelled_set_version CHECK (version >= 1)
);
CREATE INDEX idx_labelled_set_tenant_created ON labelled_set (tenant_id, created_at, id);

-- One labelled example: intent null = out of scope. `line`: its 1-based line (JSONL) or position (JSON array)
-- in the upload; null for review labels. `decision_id`: the logged decision a review label was put on (no
-- foreign key: the label outlives the decision's retention; the unique constraint's index also finds a
-- decision's review label for the decision list).
CREATE TABLE labelled_example (
  tenant_id uuid NOT NULL,
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  set_id uuid NOT NULL,
  line integer,
  text text NOT NULL,
  intent varchar(100),
  decision_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT pk_labelled_example PRIMARY KEY (tenant_id, id),
  CONSTRAINT uq_labelled_example_decision UNIQUE (tenant_id, set_id, decision_id),
  CONSTRAINT fk_labelled_example_set FOREIGN KEY (tenant_id, set_id) REFERENCES labelled_set (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX idx_labelled_example_set_created ON labelled_example (tenant_id, set_id, created_at, id);
