import type { TokenStore } from '@pay/core';
import { statementRunner } from './client.js';
import { type PostgresStoreOptions, storeTables } from './schema.js';

/**
 * The {@link TokenStore} on `<prefix>tokens`: one row per token name, compared with the database's clock.
 * Tokens are stored as they are (a login's access token is only useful for its short lifetime, and every
 * instance needs it back in clear): grant the table to the application's role only.
 */
export function createPostgresTokenStore(options: PostgresStoreOptions): TokenStore {
  const table = storeTables(options).tokens;
  const runStatement = statementRunner(options);
  const getSql = `SELECT token, (extract(epoch FROM expires_at) * 1000)::float8 AS expires_at_ms
FROM ${table} WHERE name = $1 AND expires_at > now()`;
  const setSql = `INSERT INTO ${table} (name, token, expires_at) VALUES ($1, $2, to_timestamp($3::float8 / 1000))
ON CONFLICT (name) DO UPDATE SET token = excluded.token, expires_at = excluded.expires_at`;
  // Only the token a 401 rejected is dropped: another instance may already have stored a fresh one.
  const deleteSql = `DELETE FROM ${table} WHERE name = $1 AND token = $2`;

  return {
    async get(name) {
      const { rows } = await runStatement('tokens.get', getSql, [name]);
      const row = rows[0];
      if (row === undefined) return null;
      return { token: String(row.token), expiresAt: Math.round(Number(row.expires_at_ms)) };
    },
    async set(name, { token, expiresAt }) {
      if (!Number.isFinite(expiresAt)) throw new RangeError('expiresAt must be epoch milliseconds.');
      await runStatement('tokens.set', setSql, [name, token, expiresAt]);
    },
    async delete(name, token) {
      await runStatement('tokens.delete', deleteSql, [name, token]);
    },
  };
}
