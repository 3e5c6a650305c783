-- Issue 14, item 6 (libs/feedback): the case library answers chat messages, and a bad case labelled with its
-- correct intent becomes a semantic example. docs/learning.md "Feedback that teaches".
-- Every primary key leads with tenant_id (docs/SCALING.md).

-- Per-tenant case-library answer settings; no row = the default threshold (DEFAULT_CASE_ANSWER_THRESHOLD).
CREATE TABLE case_library_settings (
  tenant_id uuid NOT NULL,
  answer_threshold double precision NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT pk_case_library_settings PRIMARY KEY (tenant_id),
  CONSTRAINT chk_case_library_settings_threshold CHECK (answer_threshold > 0 AND answer_threshold <= 1)
);

-- The version of what a replica's case index is built from: the sum of a tenant's slot counters. Every change
-- that can change an answer (a case inserted or deleted, its question, answer, source or retraction changed,
-- the threshold set) adds 1 to one slot, chosen by the writing backend (pg_backend_pid() % 16), in the writer's
-- own statement (triggers below): no writer calls anything, and concurrent writers of one tenant (e.g. useful
-- feedback posts creating AUTO cases) do not all queue on one row lock until their commits — a backend only
-- waits for another backend of the same slot. The sum only grows, in commit order, so a poll that saw a sum
-- sees every later commit as a larger one. Replicas poll it (CaseLibraryAnswers, every 250 ms).
CREATE TABLE case_library_version (
  tenant_id uuid NOT NULL,
  slot smallint NOT NULL,
  version bigint NOT NULL,
  CONSTRAINT pk_case_library_version PRIMARY KEY (tenant_id, slot),
  CONSTRAINT chk_case_library_version_slot CHECK (slot >= 0 AND slot < 16)
);

CREATE FUNCTION case_library_bump_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO case_library_version AS v (tenant_id, slot, version)
  VALUES (CASE WHEN TG_OP = 'DELETE' THEN OLD.tenant_id ELSE NEW.tenant_id END, pg_backend_pid() % 16, 1)
  ON CONFLICT (tenant_id, slot) DO UPDATE SET version = v.version + 1;
  RETURN NULL;
END
$$;

CREATE TRIGGER trg_case_library_version_insert AFTER INSERT ON case_library
  FOR EACH ROW EXECUTE FUNCTION case_library_bump_version();
CREATE TRIGGER trg_case_library_version_delete AFTER DELETE ON case_library
  FOR EACH ROW EXECUTE FUNCTION case_library_bump_version();
CREATE TRIGGER trg_case_library_version_update AFTER UPDATE ON case_library
  FOR EACH ROW
  WHEN (OLD.query IS DISTINCT FROM NEW.query OR OLD.answer IS DISTINCT FROM NEW.answer
        OR OLD.retracted_at IS DISTINCT FROM NEW.retracted_at OR OLD.source_type IS DISTINCT FROM NEW.source_type
        OR OLD.tenant_id IS DISTINCT FROM NEW.tenant_id)
  EXECUTE FUNCTION case_library_bump_version();
CREATE TRIGGER trg_case_library_settings_version AFTER INSERT OR UPDATE OR DELETE ON case_library_settings
  FOR EACH ROW EXECUTE FUNCTION case_library_bump_version();

-- The correct intent an operator put on a bad case (a session marked not_useful), and whether its question was
-- accepted as a semantic example of that intent's rule (`rule_id`, `example`). One label per bad case; no foreign
-- key to the session (sessions are never deleted; like labelled_example.decision_id).
CREATE TABLE bad_case_label (
  tenant_id uuid NOT NULL,
  session_id uuid NOT NULL,
  intent varchar(100) NOT NULL,
  rule_id uuid,
  example text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT pk_bad_case_label PRIMARY KEY (tenant_id, session_id)
);
