-- Durable jobs: one row per run. Workers claim with FOR UPDATE SKIP LOCKED under a lease; a run whose
-- worker died is re-claimed once its lease expires and resumes from its checkpoint. Scheduled runs
-- carry a unique schedule_key (job@slot@tenant), so a cron tick creates one run across all replicas.
CREATE TABLE job_run (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL,
  name varchar(64) NOT NULL,
  trigger varchar(16) NOT NULL,
  status varchar(16) NOT NULL DEFAULT 'queued',
  payload jsonb NOT NULL DEFAULT '{}',
  checkpoint jsonb,
  processed integer NOT NULL DEFAULT 0,
  failed integer NOT NULL DEFAULT 0,
  attempts integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL DEFAULT 3,
  run_after timestamptz NOT NULL DEFAULT now(),
  locked_by varchar(64),
  locked_until timestamptz,
  schedule_key varchar(200),
  error text,
  details jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  finished_at timestamptz,
  CONSTRAINT pk_job_run PRIMARY KEY (id),
  CONSTRAINT uq_job_run_schedule_key UNIQUE (schedule_key),
  CONSTRAINT chk_job_run_status CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
  CONSTRAINT chk_job_run_trigger CHECK (trigger IN ('manual', 'schedule', 'event'))
);
CREATE INDEX idx_job_run_claimable ON job_run (run_after) WHERE status IN ('queued', 'running');
CREATE INDEX idx_job_run_tenant_created ON job_run (tenant_id, created_at, id);
