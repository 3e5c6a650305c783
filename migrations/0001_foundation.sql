-- Foundation: pgvector, tenants and API keys, conversations, sessions and tool invocations.
-- Every table carries tenant_id (the distribution column if a tenant base outgrows one Postgres).
CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE tenant (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  name varchar(100) NOT NULL,
  time_zone varchar(64) NOT NULL DEFAULT 'UTC',
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT pk_tenant PRIMARY KEY (id),
  CONSTRAINT uq_tenant_name UNIQUE (name)
);

CREATE TABLE api_key (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL,
  role varchar(16) NOT NULL,
  key_hash char(64) NOT NULL,
  key_prefix varchar(16) NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz,
  CONSTRAINT pk_api_key PRIMARY KEY (id),
  CONSTRAINT uq_api_key_hash UNIQUE (key_hash),
  CONSTRAINT chk_api_key_role CHECK (role IN ('client', 'operator')),
  CONSTRAINT fk_api_key_tenant FOREIGN KEY (tenant_id) REFERENCES tenant (id) ON DELETE CASCADE
);
CREATE INDEX idx_api_key_tenant ON api_key (tenant_id);

CREATE TABLE conversation (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL,
  channel varchar(32) NOT NULL DEFAULT 'web',
  user_ref varchar(200),
  created_at timestamptz NOT NULL DEFAULT now(),
  last_activity_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT pk_conversation PRIMARY KEY (id)
);
CREATE INDEX idx_conversation_tenant_activity ON conversation (tenant_id, last_activity_at, id);

CREATE TABLE diagnosis_session (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL,
  conversation_id uuid NOT NULL,
  channel varchar(32) NOT NULL DEFAULT 'web',
  user_ref varchar(200),
  query text NOT NULL,
  answer text,
  status varchar(16) NOT NULL DEFAULT 'PENDING',
  intent varchar(100),
  step_count integer NOT NULL DEFAULT 0,
  tool_call_count integer NOT NULL DEFAULT 0,
  source_references jsonb NOT NULL DEFAULT '[]',
  media jsonb NOT NULL DEFAULT '[]',
  knowledge_searched boolean NOT NULL DEFAULT false,
  self_evaluation jsonb,
  feedback varchar(16),
  route_trace jsonb,
  error text,
  latency_ms integer,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  CONSTRAINT pk_diagnosis_session PRIMARY KEY (id),
  CONSTRAINT chk_session_status CHECK (status IN ('PENDING', 'RUNNING', 'SUCCESS', 'FAILED', 'BAD_CASE')),
  CONSTRAINT chk_session_feedback CHECK (feedback IS NULL OR feedback IN ('useful', 'not_useful')),
  CONSTRAINT chk_session_counts CHECK (step_count >= 0 AND tool_call_count >= 0),
  CONSTRAINT fk_session_conversation FOREIGN KEY (conversation_id) REFERENCES conversation (id) ON DELETE CASCADE
);
COMMENT ON COLUMN diagnosis_session.status IS 'PENDING|RUNNING|SUCCESS|FAILED|BAD_CASE (BAD_CASE: user marked the answer not useful)';
CREATE INDEX idx_session_tenant_created ON diagnosis_session (tenant_id, created_at, id);
CREATE INDEX idx_session_conversation ON diagnosis_session (conversation_id, created_at);

CREATE TABLE tool_invocation (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL,
  session_id uuid NOT NULL,
  tool_name varchar(64) NOT NULL,
  arguments jsonb NOT NULL DEFAULT '{}',
  status varchar(16) NOT NULL DEFAULT 'SUCCESS',
  result_summary text,
  relevance_level varchar(20),
  dedup_reason varchar(32),
  retrieval_details jsonb,
  duration_ms integer,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT pk_tool_invocation PRIMARY KEY (id),
  CONSTRAINT chk_tool_invocation_status CHECK (status IN ('SUCCESS', 'FAILED')),
  CONSTRAINT fk_tool_invocation_session FOREIGN KEY (session_id) REFERENCES diagnosis_session (id) ON DELETE CASCADE
);
CREATE INDEX idx_tool_invocation_session ON tool_invocation (session_id, created_at);
