-- The audit log (docs/http-edge.md "Audit log"): every write by an operator, a viewer's refused attempt
-- excepted, or the platform admin, recorded in the same transaction as the change. Never a secret.
CREATE TABLE audit_entry (
  tenant_id uuid NOT NULL,
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  occurred_at timestamptz NOT NULL DEFAULT now(),
  actor_kind varchar(16) NOT NULL,
  actor_key_id uuid,
  actor_name varchar(100),
  action varchar(40) NOT NULL,
  resource_type varchar(40) NOT NULL,
  resource_id varchar(200),
  label varchar(300),
  request_id varchar(128),
  summary jsonb NOT NULL DEFAULT '{}',
  CONSTRAINT pk_audit_entry PRIMARY KEY (tenant_id, id),
  CONSTRAINT chk_audit_entry_actor_kind CHECK (actor_kind IN ('api_key', 'platform_admin', 'system')),
  CONSTRAINT chk_audit_entry_resource_type CHECK (resource_type ~ '^[a-z][a-z0-9_]*$'),
  CONSTRAINT fk_audit_entry_tenant FOREIGN KEY (tenant_id) REFERENCES tenant (id) ON DELETE CASCADE
);
-- A tenant's log newest first (the console, the cursor), and the platform admin's across tenants.
CREATE INDEX idx_audit_entry_tenant_time ON audit_entry (tenant_id, occurred_at DESC, id DESC);
CREATE INDEX idx_audit_entry_time ON audit_entry (occurred_at DESC, id DESC);

-- How long a tenant keeps its log (default: AUDIT_RETENTION_DAYS).
CREATE TABLE audit_settings (
  tenant_id uuid NOT NULL,
  retention_days integer NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT pk_audit_settings PRIMARY KEY (tenant_id),
  CONSTRAINT chk_audit_settings_retention CHECK (retention_days BETWEEN 1 AND 3650),
  CONSTRAINT fk_audit_settings_tenant FOREIGN KEY (tenant_id) REFERENCES tenant (id) ON DELETE CASCADE
);
