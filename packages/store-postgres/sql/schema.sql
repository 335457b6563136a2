-- @pay/store-postgres schema, version 1. Idempotent: safe to run again.
SELECT pg_advisory_xact_lock(hashtext('@pay/store-postgres:pay_'));

CREATE TABLE IF NOT EXISTS pay_schema_version (
  version integer PRIMARY KEY,
  applied_at timestamptz NOT NULL DEFAULT now()
);

-- Webhook deliveries (DeduplicationStore): 'leased' while one attempt processes the delivery, until expires_at;
-- 'done' once every callback succeeded, remembered until expires_at. A row past expires_at is free.
CREATE TABLE IF NOT EXISTS pay_webhook_deliveries (
  key text PRIMARY KEY,
  state text NOT NULL CHECK (state IN ('leased', 'done')),
  lease text,
  expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS pay_webhook_deliveries_expires_at ON pay_webhook_deliveries (expires_at);

-- The idempotency ledger (IdempotencyStore): one row per caller key, kept until expires_at (the retention).
-- An 'in_progress' row is leased until lease_expires_at; after that the next attempt resumes from recovery_point.
CREATE TABLE IF NOT EXISTS pay_idempotency_keys (
  key text PRIMARY KEY,
  fingerprint text NOT NULL,
  state text NOT NULL CHECK (state IN ('in_progress', 'completed')),
  lease text,
  lease_expires_at timestamptz,
  recovery_point jsonb,
  result jsonb,
  expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS pay_idempotency_keys_expires_at ON pay_idempotency_keys (expires_at);

-- The shared token cache (TokenStore): provider access tokens are credentials, protect this table accordingly.
CREATE TABLE IF NOT EXISTS pay_tokens (
  name text PRIMARY KEY,
  token text NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS pay_tokens_expires_at ON pay_tokens (expires_at);

INSERT INTO pay_schema_version (version) VALUES (1) ON CONFLICT (version) DO NOTHING;
