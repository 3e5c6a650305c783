-- Intent (seed 004, BRIEF §4.1): per-tenant intent rules, their example embeddings, and the tenant's
-- routing config override + cache versions.
--
-- Example embeddings are computed once when a rule is saved, by the configured EmbeddingProvider, and
-- stored per (rule, provider id) as one little-endian float32 matrix (example_count × embedding_dim) —
-- loading a tenant's 15,000 examples is then one cheap read. A row of another provider id is stale:
-- the `intent.reembed` job rewrites it in the background (routing keeps using the TF-IDF index meanwhile).
--
-- intent_tenant_config.rules_version / config_version are bumped in the same transaction as every rule
-- or config change; replicas poll them to invalidate their in-memory compiled routers.

CREATE TABLE intent_rule (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL,
  intent varchar(100) NOT NULL,
  description varchar(1000),
  keywords jsonb NOT NULL DEFAULT '[]',
  patterns jsonb NOT NULL DEFAULT '[]',
  semantic_examples jsonb NOT NULL DEFAULT '[]',
  intent_vector jsonb,
  priority integer NOT NULL DEFAULT 0,
  enabled boolean NOT NULL DEFAULT true,
  reply text,
  action varchar(16) NOT NULL DEFAULT 'knowledge',
  confidence_profile varchar(32) NOT NULL DEFAULT 'search',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT pk_intent_rule PRIMARY KEY (id),
  CONSTRAINT chk_intent_rule_action CHECK (action IN ('knowledge', 'answer', 'transfer')),
  CONSTRAINT chk_intent_rule_profile CHECK (confidence_profile IN ('impact', 'dependency', 'search', 'documentation', 'complexity', 'overview', 'refactor', 'reference'))
);
COMMENT ON COLUMN intent_rule.intent_vector IS 'Mode A: JSON array of numbers, dimension = the embedding provider''s at save time';
CREATE INDEX idx_intent_rule_tenant_created ON intent_rule (tenant_id, created_at, id);

CREATE TABLE intent_rule_embedding (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL,
  rule_id uuid NOT NULL,
  embedding_model varchar(200) NOT NULL,
  embedding_dim integer NOT NULL,
  example_count integer NOT NULL,
  vectors bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT pk_intent_rule_embedding PRIMARY KEY (id),
  CONSTRAINT uq_intent_rule_embedding_rule_model UNIQUE (rule_id, embedding_model),
  CONSTRAINT chk_intent_rule_embedding_shape CHECK (embedding_dim > 0 AND example_count >= 0),
  CONSTRAINT fk_intent_rule_embedding_rule FOREIGN KEY (rule_id) REFERENCES intent_rule (id) ON DELETE CASCADE
);
COMMENT ON COLUMN intent_rule_embedding.vectors IS 'example_count x embedding_dim float32, little-endian, in semantic_examples order';
CREATE INDEX idx_intent_rule_embedding_tenant_model ON intent_rule_embedding (tenant_id, embedding_model);

CREATE TABLE intent_tenant_config (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL,
  overrides jsonb NOT NULL DEFAULT '{}',
  rules_version bigint NOT NULL DEFAULT 0,
  config_version bigint NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT pk_intent_tenant_config PRIMARY KEY (id),
  CONSTRAINT uq_intent_tenant_config_tenant UNIQUE (tenant_id)
);
