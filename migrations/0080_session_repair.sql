-- Crash recovery and idempotent ingest (issue 11).
-- hooks_done: the finished-session hooks (self-evaluation, coverage) have run. A process killed between
-- committing a finished session and running its hooks leaves it false; the sessions.repair job runs
-- them. Existing rows count as done (a constant default: no table rewrite).
ALTER TABLE diagnosis_session ADD COLUMN hooks_done boolean NOT NULL DEFAULT true;
COMMENT ON COLUMN diagnosis_session.hooks_done IS 'false until the finished-session hooks ran (sessions.repair runs them after a crash)';

-- POST /api/sessions with an Idempotency-Key header: one session per (tenant, key); request_hash is the
-- SHA-256 of the body, so the same key with another body is refused.
ALTER TABLE diagnosis_session ADD COLUMN idempotency_key varchar(200);
ALTER TABLE diagnosis_session ADD COLUMN request_hash char(64);
CREATE UNIQUE INDEX uq_session_idempotency_key ON diagnosis_session (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL;

-- What the repair job looks for, kept small by being partial.
CREATE INDEX idx_session_running ON diagnosis_session (tenant_id, created_at) WHERE status = 'RUNNING';
CREATE INDEX idx_session_hooks_pending ON diagnosis_session (tenant_id, finished_at) WHERE NOT hooks_done;
