-- Issue 28: on a Citus cluster the webhook triggers of migration 0230 run on the shards, where `NEW` (and a row
-- read from a shard) has the shard's row type (`diagnosis_session_102058`), so `webhook_turn(d diagnosis_session)`
-- does not exist there (docs/SCALING.md "Running on Citus"). On a cluster `webhook_turn` takes the row as `jsonb`
-- (`to_jsonb(NEW)`), which every shard can pass; its result is the same object. Without the citus extension
-- (PGlite, plain PostgreSQL) this migration does nothing, like 0260.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
    RETURN;
  END IF;

  PERFORM set_config('citus.enable_unsafe_triggers', 'on', true);

  -- `->` keeps each column's JSON value as jsonb_build_object made it from the typed column.
  EXECUTE $ddl$
    CREATE FUNCTION webhook_turn(d jsonb) RETURNS jsonb
      LANGUAGE sql IMMUTABLE AS $fn$
      SELECT jsonb_build_object(
        'sessionId', d -> 'id', 'at', d -> 'created_at', 'status', d -> 'status', 'user', d -> 'query', 'assistant', d -> 'answer',
        'intent', d -> 'intent',
        'shouldTransfer', coalesce((d -> 'route_trace' -> 'chat' ->> 'shouldTransfer')::boolean, false),
        'confidences', jsonb_build_object(
          'routing', d -> 'route_trace' -> 'finalConfidence',
          'reply', d -> 'route_trace' -> 'chat' -> 'confidence',
          'selfEvaluation', d -> 'self_evaluation' -> 'confidence'),
        'references', d -> 'source_references')
    $fn$
  $ddl$;

  EXECUTE $ddl$
    CREATE OR REPLACE FUNCTION webhook_on_session_handoff() RETURNS trigger
      LANGUAGE plpgsql AS $fn$
    BEGIN
      PERFORM webhook_emit(NEW.tenant_id, 'handoff.requested', jsonb_build_object(
        'sessionId', NEW.id, 'conversationId', NEW.conversation_id, 'channel', NEW.channel, 'userRef', NEW.user_ref,
        'turn', webhook_turn(to_jsonb(NEW)),
        'transcript', (
          SELECT coalesce(jsonb_agg(t.turn ORDER BY t.created_at, t.id), '[]'::jsonb)
            FROM (SELECT webhook_turn(to_jsonb(d)) AS turn, d.created_at, d.id
                    FROM diagnosis_session d
                   WHERE d.tenant_id = NEW.tenant_id AND d.conversation_id = NEW.conversation_id AND d.id <> NEW.id
                     AND d.created_at <= NEW.created_at
                   ORDER BY d.created_at DESC, d.id DESC LIMIT 49) t
        ) || jsonb_build_array(webhook_turn(to_jsonb(NEW)))));
      RETURN NULL;
    END $fn$
  $ddl$;

  EXECUTE $ddl$
    CREATE OR REPLACE FUNCTION webhook_on_bad_case() RETURNS trigger
      LANGUAGE plpgsql AS $fn$
    BEGIN
      IF TG_OP = 'UPDATE' AND OLD.feedback = 'not_useful' THEN
        RETURN NULL;
      END IF;
      PERFORM webhook_emit(NEW.tenant_id, 'feedback.bad_case', (
        SELECT jsonb_build_object('sessionId', d.id, 'conversationId', d.conversation_id, 'channel', d.channel, 'userRef', d.user_ref,
                                  'comment', NEW.comment, 'markedAt', NEW.updated_at, 'turn', webhook_turn(to_jsonb(d)))
          FROM diagnosis_session d WHERE d.tenant_id = NEW.tenant_id AND d.id = NEW.session_id));
      RETURN NULL;
    END $fn$
  $ddl$;

  DROP FUNCTION webhook_turn(diagnosis_session);
END $$;
