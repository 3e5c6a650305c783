-- Issue 14 item 5 (libs/learning): a replay of logged routing decisions under a candidate config and/or a
-- draft rule set, with no side effects (docs/learning.md "Replay"). Requested by POST /admin/intent/replay,
-- computed by the resumable `learning.intent-replay` job (its checkpoint carries the running tally), read by
-- GET /admin/intent/replays/:id.
CREATE TABLE intent_replay (
  tenant_id uuid NOT NULL,
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  status varchar(10) NOT NULL DEFAULT 'queued',
  window_from timestamptz,
  window_to timestamptz,
  decision_ids uuid[],
  candidate jsonb NOT NULL DEFAULT '{}',
  decisions integer NOT NULL,
  report jsonb,
  error text,
  job_run_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  CONSTRAINT pk_intent_replay PRIMARY KEY (tenant_id, id),
  CONSTRAINT chk_intent_replay_status CHECK (status IN ('queued', 'running', 'succeeded', 'failed'))
);
CREATE INDEX idx_intent_replay_tenant_created ON intent_replay (tenant_id, created_at, id);
