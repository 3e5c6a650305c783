-- Events to the support desk (issue 24 item 5; docs/webhooks.md). Owned by the webhooks lib.
--
-- webhook_subscription: a tenant's endpoint, the events it takes and its signing secret. The secret is kept as
-- issued (not hashed): every delivery signs with it, so it must be recoverable; the API shows it only on create
-- and rotate (docs/webhooks.md "Secrets"). During a rotation's overlap window the previous secret also signs.
--
-- webhook_event: the outbox. Written by the triggers below in the same transaction as the cause (a chat turn's
-- finish, a bad-case feedback, an uncovered coverage decision, a failed job run), and only when the tenant has an
-- enabled subscription to that type: a rolled-back cause writes nothing, a committed one is never lost. The
-- dispatcher (libs/webhooks) fans each event out to webhook_delivery rows for the subscriptions that existed when
-- the event happened, and queues one `webhooks.deliver` job run per attempt, in one transaction.
CREATE TABLE webhook_subscription (
  tenant_id uuid NOT NULL,
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  url varchar(2048) NOT NULL,
  events varchar(32)[] NOT NULL,
  description varchar(200),
  secret varchar(100) NOT NULL,
  previous_secret varchar(100),
  previous_secret_expires_at timestamptz,
  enabled boolean NOT NULL DEFAULT true,
  disabled_reason varchar(300),
  consecutive_failures integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT pk_webhook_subscription PRIMARY KEY (tenant_id, id),
  CONSTRAINT fk_webhook_subscription_tenant FOREIGN KEY (tenant_id) REFERENCES tenant (id) ON DELETE CASCADE,
  CONSTRAINT chk_webhook_subscription_events CHECK (
    cardinality(events) > 0 AND events <@ ARRAY['handoff.requested', 'feedback.bad_case', 'coverage.uncovered', 'job.failed']::varchar(32)[]),
  CONSTRAINT chk_webhook_subscription_failures CHECK (consecutive_failures >= 0)
);
CREATE INDEX idx_webhook_subscription_tenant_created ON webhook_subscription (tenant_id, created_at, id);

CREATE TABLE webhook_event (
  tenant_id uuid NOT NULL,
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  type varchar(32) NOT NULL,
  payload jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  dispatched_at timestamptz,
  CONSTRAINT pk_webhook_event PRIMARY KEY (tenant_id, id),
  CONSTRAINT fk_webhook_event_tenant FOREIGN KEY (tenant_id) REFERENCES tenant (id) ON DELETE CASCADE,
  CONSTRAINT chk_webhook_event_type CHECK (type IN ('handoff.requested', 'feedback.bad_case', 'coverage.uncovered', 'job.failed'))
);
-- The dispatcher's scan: only undispatched events are indexed.
CREATE INDEX idx_webhook_event_undispatched ON webhook_event (created_at) WHERE dispatched_at IS NULL;
-- Retention (`webhooks.cleanup`, WEBHOOK_RETENTION_DAYS; deliveries go with their event).
CREATE INDEX idx_webhook_event_tenant_created ON webhook_event (tenant_id, created_at, id);

CREATE TABLE webhook_delivery (
  tenant_id uuid NOT NULL,
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  subscription_id uuid NOT NULL,
  event_id uuid NOT NULL,
  event_type varchar(32) NOT NULL,
  redelivery_of uuid,
  status varchar(16) NOT NULL DEFAULT 'pending',
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  last_attempt_at timestamptz,
  response_status integer,
  response_ms integer,
  error varchar(1000),
  created_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  CONSTRAINT pk_webhook_delivery PRIMARY KEY (tenant_id, id),
  CONSTRAINT fk_webhook_delivery_subscription FOREIGN KEY (tenant_id, subscription_id) REFERENCES webhook_subscription (tenant_id, id) ON DELETE CASCADE,
  CONSTRAINT fk_webhook_delivery_event FOREIGN KEY (tenant_id, event_id) REFERENCES webhook_event (tenant_id, id) ON DELETE CASCADE,
  CONSTRAINT chk_webhook_delivery_status CHECK (status IN ('pending', 'succeeded', 'failed')),
  CONSTRAINT chk_webhook_delivery_attempts CHECK (attempts >= 0)
);
CREATE INDEX idx_webhook_delivery_subscription_created ON webhook_delivery (tenant_id, subscription_id, created_at, id);
CREATE INDEX idx_webhook_delivery_event ON webhook_delivery (tenant_id, event_id);

-- Writes one outbox row when the tenant has an enabled subscription to the type (else nothing: tenants without
-- webhooks pay one index probe per cause).
CREATE FUNCTION webhook_emit(p_tenant_id uuid, p_type varchar, p_payload jsonb) RETURNS void
  LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM webhook_subscription s WHERE s.tenant_id = p_tenant_id AND s.enabled AND p_type = ANY (s.events)) THEN
    INSERT INTO webhook_event (tenant_id, type, payload) VALUES (p_tenant_id, p_type, p_payload);
  END IF;
END $$;

-- One turn of a conversation as the events show it (docs/webhooks.md "Payloads").
CREATE FUNCTION webhook_turn(d diagnosis_session) RETURNS jsonb
  LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
    'sessionId', d.id, 'at', d.created_at, 'status', d.status, 'user', d.query, 'assistant', d.answer, 'intent', d.intent,
    'shouldTransfer', coalesce((d.route_trace -> 'chat' ->> 'shouldTransfer')::boolean, false),
    'confidences', jsonb_build_object(
      'routing', d.route_trace -> 'finalConfidence',
      'reply', d.route_trace -> 'chat' -> 'confidence',
      'selfEvaluation', d.self_evaluation -> 'confidence'),
    'references', d.source_references)
$$;

-- handoff.requested: a chat turn finished with shouldTransfer (recorded by the chat in route_trace.chat), in the
-- turn's own finish statement. The transcript is the conversation's last 50 turns up to this one.
CREATE FUNCTION webhook_on_session_handoff() RETURNS trigger
  LANGUAGE plpgsql AS $$
BEGIN
  PERFORM webhook_emit(NEW.tenant_id, 'handoff.requested', jsonb_build_object(
    'sessionId', NEW.id, 'conversationId', NEW.conversation_id, 'channel', NEW.channel, 'userRef', NEW.user_ref,
    'turn', webhook_turn(NEW),
    'transcript', (
      SELECT coalesce(jsonb_agg(t.turn ORDER BY t.created_at, t.id), '[]'::jsonb)
        FROM (SELECT webhook_turn(d) AS turn, d.created_at, d.id
                FROM diagnosis_session d
               WHERE d.tenant_id = NEW.tenant_id AND d.conversation_id = NEW.conversation_id AND d.id <> NEW.id
                 AND d.created_at <= NEW.created_at
               ORDER BY d.created_at DESC, d.id DESC LIMIT 49) t
    ) || jsonb_build_array(webhook_turn(NEW))));
  RETURN NULL;
END $$;
CREATE TRIGGER trg_webhook_session_handoff AFTER UPDATE OF status ON diagnosis_session
  FOR EACH ROW WHEN (OLD.status IN ('PENDING', 'RUNNING') AND NEW.status IN ('SUCCESS', 'FAILED')
                     AND NEW.route_trace -> 'chat' ->> 'shouldTransfer' = 'true')
  EXECUTE FUNCTION webhook_on_session_handoff();

-- feedback.bad_case: feedback turned not_useful (the feedback lib's upsert of session_feedback).
CREATE FUNCTION webhook_on_bad_case() RETURNS trigger
  LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.feedback = 'not_useful' THEN
    RETURN NULL;
  END IF;
  PERFORM webhook_emit(NEW.tenant_id, 'feedback.bad_case', (
    SELECT jsonb_build_object('sessionId', d.id, 'conversationId', d.conversation_id, 'channel', d.channel, 'userRef', d.user_ref,
                              'comment', NEW.comment, 'markedAt', NEW.updated_at, 'turn', webhook_turn(d))
      FROM diagnosis_session d WHERE d.tenant_id = NEW.tenant_id AND d.id = NEW.session_id));
  RETURN NULL;
END $$;
CREATE TRIGGER trg_webhook_bad_case AFTER INSERT OR UPDATE OF feedback ON session_feedback
  FOR EACH ROW WHEN (NEW.feedback = 'not_useful')
  EXECUTE FUNCTION webhook_on_bad_case();

-- coverage.uncovered: a coverage decision with verdict uncovered (live, or by the backfill).
CREATE FUNCTION webhook_on_uncovered() RETURNS trigger
  LANGUAGE plpgsql AS $$
BEGIN
  PERFORM webhook_emit(NEW.tenant_id, 'coverage.uncovered', (
    SELECT jsonb_build_object('sessionId', NEW.session_id, 'conversationId', d.conversation_id, 'channel', NEW.channel,
                              'evaluatorVersion', NEW.evaluator_version, 'reasonCode', NEW.reason_code,
                              'referenceCount', NEW.reference_count, 'topScore', NEW.top_score, 'query', d.query,
                              'sessionCreatedAt', NEW.session_created_at, 'decidedAt', NEW.decided_at)
      FROM diagnosis_session d WHERE d.tenant_id = NEW.tenant_id AND d.id = NEW.session_id));
  RETURN NULL;
END $$;
CREATE TRIGGER trg_webhook_uncovered AFTER INSERT ON coverage_decision
  FOR EACH ROW WHEN (NEW.verdict = 'uncovered')
  EXECUTE FUNCTION webhook_on_uncovered();

-- job.failed: a job run gave up (its last attempt failed). The webhooks' delivery job is left out (no event loops).
CREATE FUNCTION webhook_on_job_failed() RETURNS trigger
  LANGUAGE plpgsql AS $$
BEGIN
  PERFORM webhook_emit(NEW.tenant_id, 'job.failed', jsonb_build_object(
    'runId', NEW.id, 'name', NEW.name, 'trigger', NEW.trigger, 'attempts', NEW.attempts, 'maxAttempts', NEW.max_attempts,
    'error', NEW.error, 'createdAt', NEW.created_at, 'finishedAt', NEW.finished_at));
  RETURN NULL;
END $$;
CREATE TRIGGER trg_webhook_job_failed AFTER UPDATE OF status ON job_run
  FOR EACH ROW WHEN (NEW.status = 'failed' AND OLD.status <> 'failed' AND NEW.name <> 'webhooks.deliver')
  EXECUTE FUNCTION webhook_on_job_failed();
