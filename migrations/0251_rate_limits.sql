-- Rate limits (docs/http-edge.md "Rate limits").
-- rate_limit_window: the budget of one bucket (a key or a tenant, per route class) in one fixed window,
-- as replicas sharing this database reserve it in leases; never more than the limit is reserved.
-- Rows of past windows are deleted by the limiter every few minutes.
CREATE TABLE rate_limit_window (
  tenant_id uuid NOT NULL,
  bucket varchar(120) NOT NULL,
  window_start timestamptz NOT NULL,
  reserved integer NOT NULL,
  CONSTRAINT pk_rate_limit_window PRIMARY KEY (tenant_id, bucket, window_start),
  CONSTRAINT fk_rate_limit_window_tenant FOREIGN KEY (tenant_id) REFERENCES tenant (id) ON DELETE CASCADE
);
CREATE INDEX idx_rate_limit_window_start ON rate_limit_window (window_start);

-- Per-tenant overrides of the configured limits, set by the platform admin (null: the configured default).
CREATE TABLE tenant_rate_limit (
  tenant_id uuid NOT NULL,
  route_class varchar(16) NOT NULL,
  per_minute integer,
  per_key_per_minute integer,
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT pk_tenant_rate_limit PRIMARY KEY (tenant_id, route_class),
  CONSTRAINT chk_tenant_rate_limit_class CHECK (route_class IN ('chat', 'route', 'lookup', 'ingest', 'admin')),
  CONSTRAINT chk_tenant_rate_limit_values CHECK ((per_minute IS NULL OR per_minute >= 0) AND (per_key_per_minute IS NULL OR per_key_per_minute >= 0)),
  CONSTRAINT fk_tenant_rate_limit_tenant FOREIGN KEY (tenant_id) REFERENCES tenant (id) ON DELETE CASCADE
);
