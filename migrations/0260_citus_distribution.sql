-- Issue 28, item 2: on a Citus cluster, distribute the schema by tenant (docs/SCALING.md "Tables" and "Running
-- on Citus"). Without the citus extension (PGlite, plain PostgreSQL) this migration does nothing.
--
-- Placement, read from the catalog so that it is the rule of docs/SCALING.md and not a second list to keep:
--   - `tenant` and `api_key` become reference tables (replicated to every node);
--   - every other table of this schema with a `tenant_id` column is distributed by `tenant_id`, all in the
--     co-location group of `conversation`, so joins on tenant_id and foreign keys stay inside one shard;
--   - anything else (the migrator's `schema_migrations`) stays local to the coordinator.
-- libs/database/src/tenant-keys.int-spec.ts compares this placement with the page on a cluster.
--
-- Citus accepts a foreign key between distributed tables only when both are distributed and co-located, so the
-- foreign keys are dropped first and re-created, unchanged, once every table is placed. Triggers on distributed
-- tables need citus.enable_unsafe_triggers (docs/SCALING.md "Open points"); sequential mode keeps the
-- distribution and the foreign keys of one transaction on one connection per node, which Citus requires when a
-- transaction creates distributed tables and then foreign keys between them.
DO $$
DECLARE
  fk record;
  tbl text;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
    RETURN;
  END IF;

  PERFORM set_config('citus.enable_unsafe_triggers', 'on', true);
  PERFORM set_config('citus.multi_shard_modify_mode', 'sequential', true);

  -- The stats triggers of migration 0090 append a bulk INSERT's or DELETE's deltas in one statement, reading the
  -- statement's transition tables. On a shard Citus plans that INSERT … SELECT apart from the trigger's executor
  -- and fails ("could not find named tuplestore"), so on a cluster they append one delta row per session or
  -- decision instead: the same sums, from row triggers, which run inside the shard's own statement.
  DROP TRIGGER trg_session_stats_insert ON diagnosis_session;
  DROP TRIGGER trg_session_stats_delete ON diagnosis_session;
  DROP TRIGGER trg_coverage_stats_insert ON coverage_decision;
  DROP TRIGGER trg_coverage_stats_delete ON coverage_decision;
  EXECUTE $ddl$
    CREATE FUNCTION session_stats_track_row() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      INSERT INTO session_stats_delta (tenant_id, bucket, sessions, pending, running, success, failed, bad_case,
        reason_rule_high_confidence, reason_semantic_override, reason_no_match, reason_llm_judge, reason_fusion_fallback,
        reason_semantic_fallback, reason_other, routed, clarify, judge_calls, judge_tokens, llm_count, llm_sum, rule_count,
        rule_sum, useful, not_useful, latency_count, latency_ms)
      SELECT v.* FROM session_stats_vector(
        CASE WHEN TG_OP = 'INSERT' THEN NEW.tenant_id ELSE OLD.tenant_id END,
        CASE WHEN TG_OP = 'INSERT' THEN NEW.created_at ELSE OLD.created_at END,
        CASE WHEN TG_OP = 'INSERT' THEN NEW.status ELSE OLD.status END,
        CASE WHEN TG_OP = 'INSERT' THEN NEW.feedback ELSE OLD.feedback END,
        CASE WHEN TG_OP = 'INSERT' THEN NEW.route_trace ELSE OLD.route_trace END,
        CASE WHEN TG_OP = 'INSERT' THEN NEW.self_evaluation ELSE OLD.self_evaluation END,
        CASE WHEN TG_OP = 'INSERT' THEN NEW.latency_ms ELSE OLD.latency_ms END,
        CASE WHEN TG_OP = 'INSERT' THEN 1 ELSE -1 END) v;
      RETURN NULL;
    END $fn$
  $ddl$;
  EXECUTE $ddl$
    CREATE FUNCTION coverage_stats_track_row() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO coverage_stats_delta (tenant_id, bucket, evaluator_version, decisions, covered)
        VALUES (NEW.tenant_id, stats_bucket(NEW.session_created_at), NEW.evaluator_version, 1, CASE WHEN NEW.verdict = 'covered' THEN 1 ELSE 0 END);
      ELSE
        INSERT INTO coverage_stats_delta (tenant_id, bucket, evaluator_version, decisions, covered)
        VALUES (OLD.tenant_id, stats_bucket(OLD.session_created_at), OLD.evaluator_version, -1, CASE WHEN OLD.verdict = 'covered' THEN -1 ELSE 0 END);
      END IF;
      RETURN NULL;
    END $fn$
  $ddl$;
  CREATE TRIGGER trg_session_stats_insert AFTER INSERT ON diagnosis_session FOR EACH ROW EXECUTE FUNCTION session_stats_track_row();
  CREATE TRIGGER trg_session_stats_delete AFTER DELETE ON diagnosis_session FOR EACH ROW EXECUTE FUNCTION session_stats_track_row();
  CREATE TRIGGER trg_coverage_stats_insert AFTER INSERT ON coverage_decision FOR EACH ROW EXECUTE FUNCTION coverage_stats_track_row();
  CREATE TRIGGER trg_coverage_stats_delete AFTER DELETE ON coverage_decision FOR EACH ROW EXECUTE FUNCTION coverage_stats_track_row();

  CREATE TEMP TABLE arbiter_citus_fk ON COMMIT DROP AS
    SELECT con.conrelid::regclass::text AS tbl, con.conname::text AS name, pg_get_constraintdef(con.oid) AS def
      FROM pg_constraint con
     WHERE con.contype = 'f' AND con.connamespace = 'public'::regnamespace;
  FOR fk IN SELECT * FROM arbiter_citus_fk LOOP
    EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', fk.tbl, fk.name);
  END LOOP;

  PERFORM create_reference_table('tenant');
  PERFORM create_reference_table('api_key');
  PERFORM create_distributed_table('conversation', 'tenant_id');
  FOR tbl IN
    SELECT c.relname::text
      FROM pg_class c
     WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
       AND c.relname NOT IN ('tenant', 'api_key', 'conversation')
       AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'tenant_id' AND a.attnum > 0 AND NOT a.attisdropped)
     ORDER BY c.relname
  LOOP
    PERFORM create_distributed_table(tbl, 'tenant_id', colocate_with => 'conversation');
  END LOOP;

  FOR fk IN SELECT * FROM arbiter_citus_fk LOOP
    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I %s', fk.tbl, fk.name, fk.def);
  END LOOP;
END $$;
