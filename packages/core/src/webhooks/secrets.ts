/**
 * The webhook secrets a handler verifies with, as `setup()` and `updateSecrets()` take them
 * (docs/architecture.md#credential-rotation): checked by core's one credential rule, then used exactly as checked.
 */
import * as v from 'valibot';
import { credentialSchema } from '../config.js';
import { ConfigurationError } from '../errors.js';
import type { ProviderName } from '../records.js';
import type { WebhookDefinition } from './types.js';

/**
 * The secrets `given` (one, or a list while one is rotated), each trimmed, in the order given. Throws
 * `ConfigurationError` (naming no value) when the provider checks with a secret and none is given, or one is not a
 * string or is blank: the caller changes nothing before this returns. Empty for a provider that signs with its own
 * keys (Provider T).
 */
export function checkWebhookSecrets(
  provider: ProviderName,
  webhooks: Pick<WebhookDefinition, 'secret'>,
  given: unknown,
): readonly string[] {
  if (webhooks.secret === 'unused') return Object.freeze([]);
  const candidates: readonly unknown[] =
    typeof given === 'string' ? [given] : Array.isArray(given) ? given : [];
  const checked = candidates.map((candidate) => v.safeParse(credentialSchema, candidate));
  const secrets = checked.flatMap((result) => (result.success ? [result.output] : []));
  if (secrets.length === 0 || secrets.length < candidates.length) {
    throw new ConfigurationError(
      `${provider} webhooks are checked with a secret: pass it as webhookSecret (a string that is not empty or blank, or a list of them while one is rotated).`,
      { missing: ['webhookSecret'] },
    );
  }
  return Object.freeze(secrets);
}
