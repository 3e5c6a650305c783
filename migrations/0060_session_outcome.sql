-- How the agent run ended, kept apart from the feedback state (issue 12). Feedback turns a session
-- BAD_CASE whatever the run did, so a FAILED run marked not useful looked like a succeeded one: it was
-- re-evaluated by the rules as 75 instead of 0 (seed 000: FAILED → 0, only successful runs are
-- assessed) and picked up by the coverage backfill (seed 001: succeeded turns only).
ALTER TABLE diagnosis_session ADD COLUMN outcome varchar(16);
ALTER TABLE diagnosis_session ADD CONSTRAINT chk_session_outcome CHECK (outcome IS NULL OR outcome IN ('SUCCESS', 'FAILED'));
COMMENT ON COLUMN diagnosis_session.outcome IS 'SUCCESS|FAILED: how the agent run ended, unchanged by feedback (a FAILED run marked not useful is status BAD_CASE, outcome FAILED); NULL while unfinished';

-- Finished sessions: their status, or for BAD_CASE the status feedback recorded before setting it.
UPDATE diagnosis_session s
   SET outcome = CASE WHEN s.status = 'BAD_CASE'
                      THEN COALESCE((SELECT f.status_before FROM session_feedback f WHERE f.session_id = s.id), 'SUCCESS')
                      ELSE s.status END
 WHERE s.status IN ('SUCCESS', 'FAILED', 'BAD_CASE');

-- Coverage decisions the backfill wrote for failed runs are not decisions seed 001 makes.
DELETE FROM coverage_decision d USING diagnosis_session s WHERE d.session_id = s.id AND s.outcome = 'FAILED';
