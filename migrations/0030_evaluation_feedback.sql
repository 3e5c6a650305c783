-- Evaluation + Feedback (seed 000, BRIEF §4.3/§4.4).
-- Self-evaluations live in diagnosis_session.self_evaluation (jsonb, foundation); BAD_CASE is already in
-- chk_session_status and the status column comment (0001), so the session table needs no change here.

-- The user's verdict on a session: one row per session. status_before remembers the status the session
-- had before feedback set BAD_CASE, so not_useful → useful restores it.
CREATE TABLE session_feedback (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL,
  session_id uuid NOT NULL,
  feedback varchar(16) NOT NULL,
  comment varchar(1000),
  status_before varchar(16) NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT pk_session_feedback PRIMARY KEY (id),
  CONSTRAINT uq_session_feedback_session UNIQUE (session_id),
  CONSTRAINT chk_session_feedback_value CHECK (feedback IN ('useful', 'not_useful')),
  CONSTRAINT chk_session_feedback_status_before CHECK (status_before IN ('SUCCESS', 'FAILED')),
  CONSTRAINT fk_session_feedback_session FOREIGN KEY (session_id) REFERENCES diagnosis_session (id) ON DELETE CASCADE
);
-- Bad-case review queue: not_useful feedback of a tenant, newest first.
CREATE INDEX idx_session_feedback_tenant_value_updated ON session_feedback (tenant_id, feedback, updated_at, id);

-- Curated question/answer cases. AUTO cases come from useful feedback (one per session, retracted —
-- not deleted — when the feedback turns not_useful, so operator edits survive a flip back); MANUAL
-- cases are written by operators.
CREATE TABLE case_library (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL,
  session_id uuid,
  query text NOT NULL,
  answer text NOT NULL,
  fault_category varchar(32) NOT NULL DEFAULT 'GENERAL',
  error_code varchar(64),
  source_type varchar(16) NOT NULL,
  retracted_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT pk_case_library PRIMARY KEY (id),
  CONSTRAINT uq_case_library_session UNIQUE (session_id),
  CONSTRAINT chk_case_library_source_type CHECK (source_type IN ('AUTO', 'MANUAL')),
  CONSTRAINT chk_case_library_fault_category CHECK (fault_category IN ('GENERAL', 'MECHANICAL', 'ELECTRICAL', 'SOFTWARE', 'COMMUNICATION', 'CONFIGURATION', 'OPERATION', 'SAFETY', 'OTHER')),
  CONSTRAINT chk_case_library_auto_session CHECK (source_type = 'MANUAL' OR session_id IS NOT NULL)
);
CREATE INDEX idx_case_library_tenant_created ON case_library (tenant_id, created_at, id);
