-- Coverage (BRIEF §4.5, seed 001): one decision per (session, evaluator version).
-- Denormalised channel, session time and gap key so reports and gap lists aggregate this table alone.
CREATE TABLE coverage_decision (
  session_id uuid NOT NULL,
  evaluator_version varchar(16) NOT NULL,
  tenant_id uuid NOT NULL,
  channel varchar(32) NOT NULL,
  verdict varchar(16) NOT NULL,
  reason_code varchar(40) NOT NULL,
  reference_count integer NOT NULL,
  top_score double precision NOT NULL,
  gap_key text NOT NULL,
  session_created_at timestamptz NOT NULL,
  decided_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT pk_coverage_decision PRIMARY KEY (session_id, evaluator_version),
  CONSTRAINT chk_coverage_decision_verdict CHECK (verdict IN ('covered', 'uncovered')),
  CONSTRAINT chk_coverage_decision_reason CHECK (reason_code IN ('covered_has_references', 'covered_visual_recognition', 'covered_non_knowledge_response', 'uncovered_explicit_no_answer', 'uncovered_no_references')),
  CONSTRAINT chk_coverage_decision_counts CHECK (reference_count >= 0 AND top_score >= 0),
  CONSTRAINT fk_coverage_decision_session FOREIGN KEY (session_id) REFERENCES diagnosis_session (id) ON DELETE CASCADE
);
COMMENT ON COLUMN coverage_decision.gap_key IS 'normalizeGapText(query): case/width-folded, whitespace- and punctuation-free grouping key';
CREATE INDEX idx_coverage_decision_report ON coverage_decision (tenant_id, evaluator_version, session_created_at);
