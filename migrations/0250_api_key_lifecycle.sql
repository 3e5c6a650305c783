-- Named keys with a lifecycle (docs/http-edge.md "Keys"): a name, the read-only `viewer` role, an
-- expiry, the origins a browser may send a client key from, rotation with a grace period for the
-- previous secret, and when it was last used (written in batches, never once per request).
-- `changed_at` moves on every create, rotation, revocation and edit, so the in-memory key directory of
-- every replica sees the change through its one cheap version statement.
ALTER TABLE api_key
  ADD COLUMN name varchar(100) NOT NULL DEFAULT '',
  ADD COLUMN expires_at timestamptz,
  ADD COLUMN allowed_origins jsonb NOT NULL DEFAULT '[]',
  ADD COLUMN previous_key_hash char(64),
  ADD COLUMN previous_valid_until timestamptz,
  ADD COLUMN last_used_at timestamptz,
  ADD COLUMN changed_at timestamptz NOT NULL DEFAULT now();

-- The two keys every tenant got at creation are named after their role.
UPDATE api_key SET name = role, changed_at = coalesce(revoked_at, created_at);
ALTER TABLE api_key ALTER COLUMN name DROP DEFAULT;

ALTER TABLE api_key DROP CONSTRAINT chk_api_key_role,
  ADD CONSTRAINT chk_api_key_role CHECK (role IN ('client', 'operator', 'viewer'));
ALTER TABLE api_key ADD CONSTRAINT chk_api_key_name CHECK (char_length(btrim(name)) BETWEEN 1 AND 100);
ALTER TABLE api_key ADD CONSTRAINT chk_api_key_allowed_origins CHECK (jsonb_typeof(allowed_origins) = 'array');
-- A secret in its grace period authenticates like the current one, so it must be unique too.
CREATE UNIQUE INDEX uq_api_key_previous_hash ON api_key (previous_key_hash) WHERE previous_key_hash IS NOT NULL;
