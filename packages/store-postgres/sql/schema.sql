-- @pay/store-postgres schema, version 2. Idempotent: safe to run again.
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

-- Version 2: the reconciler (docs/architecture.md#reconciliation).
-- Ledger entries nobody works on (IdempotencyStore.stale): in progress, their lease ended.
CREATE INDEX IF NOT EXISTS pay_idempotency_keys_stale ON pay_idempotency_keys (lease_expires_at)
  WHERE state = 'in_progress';

-- The watch list (ReconciliationStore): one row per watched object, read again at due_at until a final status or
-- expires_at. While an instance reads it, lease names the instance's claim until lease_until.
CREATE TABLE IF NOT EXISTS pay_reconciliation (
  provider text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('payment', 'checkout', 'refund')),
  id text NOT NULL,
  status text,
  reads integer NOT NULL,
  due_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  lease text,
  lease_until timestamptz,
  PRIMARY KEY (provider, kind, id)
);
CREATE INDEX IF NOT EXISTS pay_reconciliation_due_at ON pay_reconciliation (provider, due_at);
CREATE INDEX IF NOT EXISTS pay_reconciliation_expires_at ON pay_reconciliation (expires_at);

-- The read budget every instance spends from: reads granted per provider and minute (epoch minutes); granted is
-- what the latest spend got, so that one INSERT … ON CONFLICT can both take reads and say how many it took.
CREATE TABLE IF NOT EXISTS pay_reconciliation_reads (
  provider text NOT NULL,
  minute bigint NOT NULL,
  reads integer NOT NULL,
  granted integer NOT NULL,
  PRIMARY KEY (provider, minute)
);

INSERT INTO pay_schema_version (version) VALUES (2) ON CONFLICT (version) DO NOTHING;
