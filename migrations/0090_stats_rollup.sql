-- Stats from rollups (issue 13; docs/hot-paths.md, "Stats"). GET /admin/monitoring/stats read every
-- session of the window (~1.1 KB rows with jsonb); it now reads 15-minute rollup rows instead.
--
-- Kept current in the same transaction as every write to the source tables: triggers on
-- diagnosis_session and coverage_decision append the change (the old row's contribution negated, the
-- new row's) to a delta table. Appending never waits for another transaction, unlike updating a shared
-- counter row, which would serialise every session finish and feedback post of a tenant on one row
-- lock held until commit. Monitoring folds the deltas into the rollup (one statement) and reads rollup
-- plus any unfolded deltas in one statement, so the figures are exact and current, not eventually so.
-- 15 minutes: every UTC offset in use is a multiple of 15 minutes, so a tenant's local day is a whole
-- number of buckets; windows that start or end inside a bucket read those edges from the sessions.

CREATE FUNCTION stats_bucket(ts timestamptz) RETURNS timestamptz
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT date_bin('15 minutes', ts, TIMESTAMPTZ '2000-01-01 00:00:00+00') $$;

-- One session's contribution to the session figures, times `sign` (+1 added, -1 removed). The only
-- definition of how a session row counts: used by the triggers, the rebuild and the window edges.
CREATE FUNCTION session_stats_vector(
  p_tenant_id uuid, p_created_at timestamptz, p_status varchar, p_feedback varchar, p_route_trace jsonb,
  p_self_evaluation jsonb, p_latency_ms integer, sign integer)
RETURNS TABLE (
  tenant_id uuid, bucket timestamptz, sessions integer, pending integer, running integer, success integer,
  failed integer, bad_case integer, reason_rule_high_confidence integer, reason_semantic_override integer,
  reason_no_match integer, reason_llm_judge integer, reason_fusion_fallback integer, reason_semantic_fallback integer,
  reason_other integer, routed integer, clarify integer, judge_calls integer, judge_tokens double precision,
  llm_count integer, llm_sum double precision, rule_count integer, rule_sum double precision, useful integer,
  not_useful integer, latency_count integer, latency_ms integer)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT p_tenant_id, stats_bucket(p_created_at), sign,
    CASE WHEN p_status = 'PENDING' THEN sign ELSE 0 END,
    CASE WHEN p_status = 'RUNNING' THEN sign ELSE 0 END,
    CASE WHEN p_status = 'SUCCESS' THEN sign ELSE 0 END,
    CASE WHEN p_status = 'FAILED' THEN sign ELSE 0 END,
    CASE WHEN p_status = 'BAD_CASE' THEN sign ELSE 0 END,
    CASE WHEN x.reason = 'rule_high_confidence' THEN sign ELSE 0 END,
    CASE WHEN x.reason = 'semantic_override' THEN sign ELSE 0 END,
    CASE WHEN x.reason = 'no_match' THEN sign ELSE 0 END,
    CASE WHEN x.reason = 'llm_judge' THEN sign ELSE 0 END,
    CASE WHEN x.reason = 'fusion_fallback' THEN sign ELSE 0 END,
    CASE WHEN x.reason = 'semantic_fallback' THEN sign ELSE 0 END,
    CASE WHEN x.reason NOT IN ('rule_high_confidence', 'semantic_override', 'no_match', 'llm_judge', 'fusion_fallback', 'semantic_fallback') THEN sign ELSE 0 END,
    CASE WHEN p_route_trace IS NOT NULL THEN sign ELSE 0 END,
    CASE WHEN x.clarify THEN sign ELSE 0 END,
    CASE WHEN x.judge_called THEN sign ELSE 0 END,
    CASE WHEN x.judge_called AND x.judge_tokens IS NOT NULL THEN sign * x.judge_tokens ELSE 0 END,
    CASE WHEN x.src = 'llm' AND x.conf IS NOT NULL THEN sign ELSE 0 END,
    CASE WHEN x.src = 'llm' AND x.conf IS NOT NULL THEN sign * x.conf ELSE 0 END,
    CASE WHEN x.src = 'rule' AND x.conf IS NOT NULL THEN sign ELSE 0 END,
    CASE WHEN x.src = 'rule' AND x.conf IS NOT NULL THEN sign * x.conf ELSE 0 END,
    CASE WHEN p_feedback = 'useful' THEN sign ELSE 0 END,
    CASE WHEN p_feedback = 'not_useful' THEN sign ELSE 0 END,
    CASE WHEN p_latency_ms IS NOT NULL THEN sign ELSE 0 END,
    p_latency_ms
  FROM (SELECT
          p_route_trace->'fusion'->>'decisionReason' AS reason,
          COALESCE(p_route_trace->>'needClarify', p_route_trace->'fusion'->>'needClarify') = 'true' AS clarify,
          (p_route_trace->'llmJudge'->>'triggered' = 'true' AND p_route_trace->'llmJudge'->'skipped' IS NULL) AS judge_called,
          CASE WHEN jsonb_typeof(p_route_trace->'llmJudge'->'tokens') = 'number' THEN (p_route_trace->'llmJudge'->>'tokens')::float8 END AS judge_tokens,
          p_self_evaluation->>'source' AS src,
          CASE WHEN jsonb_typeof(p_self_evaluation->'confidence') = 'number' THEN (p_self_evaluation->>'confidence')::float8 END AS conf) x
$$;

-- A multiset of latencies: non-negative entries are values, an entry -(v + 1) removes one v. Returns the
-- remaining values, sorted.
CREATE FUNCTION stats_latency_multiset(vals integer[]) RETURNS integer[]
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT COALESCE(array_agg(t.v ORDER BY t.v), '{}'::integer[])
  FROM (SELECT CASE WHEN x >= 0 THEN x ELSE -x - 1 END AS v, sum(CASE WHEN x >= 0 THEN 1 ELSE -1 END)::int AS c
          FROM unnest(vals) AS x GROUP BY 1) t
  CROSS JOIN LATERAL generate_series(1, t.c)
$$;

CREATE TABLE session_stats_rollup (
  tenant_id uuid NOT NULL,
  bucket timestamptz NOT NULL,
  sessions integer NOT NULL,
  pending integer NOT NULL,
  running integer NOT NULL,
  success integer NOT NULL,
  failed integer NOT NULL,
  bad_case integer NOT NULL,
  reason_rule_high_confidence integer NOT NULL,
  reason_semantic_override integer NOT NULL,
  reason_no_match integer NOT NULL,
  reason_llm_judge integer NOT NULL,
  reason_fusion_fallback integer NOT NULL,
  reason_semantic_fallback integer NOT NULL,
  reason_other integer NOT NULL,
  routed integer NOT NULL,
  clarify integer NOT NULL,
  judge_calls integer NOT NULL,
  judge_tokens double precision NOT NULL,
  llm_count integer NOT NULL,
  llm_sum double precision NOT NULL,
  rule_count integer NOT NULL,
  rule_sum double precision NOT NULL,
  useful integer NOT NULL,
  not_useful integer NOT NULL,
  latency_count integer NOT NULL,
  latencies integer[] NOT NULL,
  CONSTRAINT pk_session_stats_rollup PRIMARY KEY (tenant_id, bucket)
);
COMMENT ON TABLE session_stats_rollup IS 'Session figures per tenant and 15-minute bucket of created_at (session_stats_vector summed); latencies = every latency_ms of the bucket';

CREATE TABLE session_stats_delta (
  id bigint GENERATED ALWAYS AS IDENTITY,
  tenant_id uuid NOT NULL,
  bucket timestamptz NOT NULL,
  sessions integer NOT NULL,
  pending integer NOT NULL,
  running integer NOT NULL,
  success integer NOT NULL,
  failed integer NOT NULL,
  bad_case integer NOT NULL,
  reason_rule_high_confidence integer NOT NULL,
  reason_semantic_override integer NOT NULL,
  reason_no_match integer NOT NULL,
  reason_llm_judge integer NOT NULL,
  reason_fusion_fallback integer NOT NULL,
  reason_semantic_fallback integer NOT NULL,
  reason_other integer NOT NULL,
  routed integer NOT NULL,
  clarify integer NOT NULL,
  judge_calls integer NOT NULL,
  judge_tokens double precision NOT NULL,
  llm_count integer NOT NULL,
  llm_sum double precision NOT NULL,
  rule_count integer NOT NULL,
  rule_sum double precision NOT NULL,
  useful integer NOT NULL,
  not_useful integer NOT NULL,
  latency_count integer NOT NULL,
  latency_ms integer,
  CONSTRAINT pk_session_stats_delta PRIMARY KEY (tenant_id, id)
);
COMMENT ON TABLE session_stats_delta IS 'Changes to diagnosis_session not yet folded into session_stats_rollup (one row per added or removed contribution)';

CREATE TABLE coverage_stats_rollup (
  tenant_id uuid NOT NULL,
  bucket timestamptz NOT NULL,
  evaluator_version varchar(16) NOT NULL,
  decisions integer NOT NULL,
  covered integer NOT NULL,
  CONSTRAINT pk_coverage_stats_rollup PRIMARY KEY (tenant_id, bucket, evaluator_version)
);
COMMENT ON TABLE coverage_stats_rollup IS 'Coverage decisions per tenant, 15-minute bucket of session_created_at and evaluator version';

CREATE TABLE coverage_stats_delta (
  id bigint GENERATED ALWAYS AS IDENTITY,
  tenant_id uuid NOT NULL,
  bucket timestamptz NOT NULL,
  evaluator_version varchar(16) NOT NULL,
  decisions integer NOT NULL,
  covered integer NOT NULL,
  CONSTRAINT pk_coverage_stats_delta PRIMARY KEY (tenant_id, id)
);
COMMENT ON TABLE coverage_stats_delta IS 'Changes to coverage_decision not yet folded into coverage_stats_rollup';

-- Triggers: statement-level with transition tables for INSERT and DELETE (a bulk insert appends its
-- deltas in one statement), row-level for the UPDATEs that change a counted column.
CREATE FUNCTION session_stats_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO session_stats_delta (tenant_id, bucket, sessions, pending, running, success, failed, bad_case,
      reason_rule_high_confidence, reason_semantic_override, reason_no_match, reason_llm_judge, reason_fusion_fallback,
      reason_semantic_fallback, reason_other, routed, clarify, judge_calls, judge_tokens, llm_count, llm_sum, rule_count,
      rule_sum, useful, not_useful, latency_count, latency_ms)
    SELECT v.* FROM stats_new_rows n
      CROSS JOIN LATERAL session_stats_vector(n.tenant_id, n.created_at, n.status, n.feedback, n.route_trace, n.self_evaluation, n.latency_ms, 1) v;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO session_stats_delta (tenant_id, bucket, sessions, pending, running, success, failed, bad_case,
      reason_rule_high_confidence, reason_semantic_override, reason_no_match, reason_llm_judge, reason_fusion_fallback,
      reason_semantic_fallback, reason_other, routed, clarify, judge_calls, judge_tokens, llm_count, llm_sum, rule_count,
      rule_sum, useful, not_useful, latency_count, latency_ms)
    SELECT v.* FROM stats_old_rows o
      CROSS JOIN LATERAL session_stats_vector(o.tenant_id, o.created_at, o.status, o.feedback, o.route_trace, o.self_evaluation, o.latency_ms, -1) v;
  ELSE
    INSERT INTO session_stats_delta (tenant_id, bucket, sessions, pending, running, success, failed, bad_case,
      reason_rule_high_confidence, reason_semantic_override, reason_no_match, reason_llm_judge, reason_fusion_fallback,
      reason_semantic_fallback, reason_other, routed, clarify, judge_calls, judge_tokens, llm_count, llm_sum, rule_count,
      rule_sum, useful, not_useful, latency_count, latency_ms)
    SELECT v.* FROM session_stats_vector(OLD.tenant_id, OLD.created_at, OLD.status, OLD.feedback, OLD.route_trace, OLD.self_evaluation, OLD.latency_ms, -1) v
    UNION ALL
    SELECT v.* FROM session_stats_vector(NEW.tenant_id, NEW.created_at, NEW.status, NEW.feedback, NEW.route_trace, NEW.self_evaluation, NEW.latency_ms, 1) v;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER trg_session_stats_insert AFTER INSERT ON diagnosis_session
  REFERENCING NEW TABLE AS stats_new_rows FOR EACH STATEMENT EXECUTE FUNCTION session_stats_track();
CREATE TRIGGER trg_session_stats_delete AFTER DELETE ON diagnosis_session
  REFERENCING OLD TABLE AS stats_old_rows FOR EACH STATEMENT EXECUTE FUNCTION session_stats_track();
CREATE TRIGGER trg_session_stats_update AFTER UPDATE OF tenant_id, created_at, status, feedback, route_trace, self_evaluation, latency_ms ON diagnosis_session
  FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.feedback IS DISTINCT FROM NEW.feedback
        OR OLD.route_trace IS DISTINCT FROM NEW.route_trace OR OLD.self_evaluation IS DISTINCT FROM NEW.self_evaluation
        OR OLD.latency_ms IS DISTINCT FROM NEW.latency_ms OR OLD.created_at IS DISTINCT FROM NEW.created_at
        OR OLD.tenant_id IS DISTINCT FROM NEW.tenant_id)
  EXECUTE FUNCTION session_stats_track();

CREATE FUNCTION coverage_stats_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO coverage_stats_delta (tenant_id, bucket, evaluator_version, decisions, covered)
    SELECT n.tenant_id, stats_bucket(n.session_created_at), n.evaluator_version, count(*), count(*) FILTER (WHERE n.verdict = 'covered')
      FROM stats_new_rows n GROUP BY 1, 2, 3;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO coverage_stats_delta (tenant_id, bucket, evaluator_version, decisions, covered)
    SELECT o.tenant_id, stats_bucket(o.session_created_at), o.evaluator_version, -count(*), -count(*) FILTER (WHERE o.verdict = 'covered')
      FROM stats_old_rows o GROUP BY 1, 2, 3;
  ELSE
    INSERT INTO coverage_stats_delta (tenant_id, bucket, evaluator_version, decisions, covered)
    VALUES (OLD.tenant_id, stats_bucket(OLD.session_created_at), OLD.evaluator_version, -1, CASE WHEN OLD.verdict = 'covered' THEN -1 ELSE 0 END),
           (NEW.tenant_id, stats_bucket(NEW.session_created_at), NEW.evaluator_version, 1, CASE WHEN NEW.verdict = 'covered' THEN 1 ELSE 0 END);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER trg_coverage_stats_insert AFTER INSERT ON coverage_decision
  REFERENCING NEW TABLE AS stats_new_rows FOR EACH STATEMENT EXECUTE FUNCTION coverage_stats_track();
CREATE TRIGGER trg_coverage_stats_delete AFTER DELETE ON coverage_decision
  REFERENCING OLD TABLE AS stats_old_rows FOR EACH STATEMENT EXECUTE FUNCTION coverage_stats_track();
CREATE TRIGGER trg_coverage_stats_update AFTER UPDATE OF tenant_id, session_created_at, evaluator_version, verdict ON coverage_decision
  FOR EACH ROW
  WHEN (OLD.verdict IS DISTINCT FROM NEW.verdict OR OLD.session_created_at IS DISTINCT FROM NEW.session_created_at
        OR OLD.evaluator_version IS DISTINCT FROM NEW.evaluator_version OR OLD.tenant_id IS DISTINCT FROM NEW.tenant_id)
  EXECUTE FUNCTION coverage_stats_track();

-- Backfill what exists (the same statements as the monitoring lib's rebuild).
INSERT INTO session_stats_rollup
SELECT v.tenant_id, v.bucket, sum(v.sessions), sum(v.pending), sum(v.running), sum(v.success), sum(v.failed), sum(v.bad_case),
       sum(v.reason_rule_high_confidence), sum(v.reason_semantic_override), sum(v.reason_no_match), sum(v.reason_llm_judge),
       sum(v.reason_fusion_fallback), sum(v.reason_semantic_fallback), sum(v.reason_other), sum(v.routed), sum(v.clarify),
       sum(v.judge_calls), sum(v.judge_tokens), sum(v.llm_count), sum(v.llm_sum), sum(v.rule_count), sum(v.rule_sum),
       sum(v.useful), sum(v.not_useful), sum(v.latency_count),
       COALESCE(array_agg(v.latency_ms ORDER BY v.latency_ms) FILTER (WHERE v.latency_ms IS NOT NULL), '{}')
  FROM diagnosis_session s
  CROSS JOIN LATERAL session_stats_vector(s.tenant_id, s.created_at, s.status, s.feedback, s.route_trace, s.self_evaluation, s.latency_ms, 1) v
 GROUP BY v.tenant_id, v.bucket;

INSERT INTO coverage_stats_rollup
SELECT d.tenant_id, stats_bucket(d.session_created_at), d.evaluator_version, count(*), count(*) FILTER (WHERE d.verdict = 'covered')
  FROM coverage_decision d
 GROUP BY 1, 2, 3;
