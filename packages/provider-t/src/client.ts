/**
 * How the adapter talks to Provider T (docs/providers/provider-t.md#authentication): core's provider client with
 * the OAuth token manager behind it, `X-Client-Request-Id` on every call (the same on each retry of it), and
 * Provider T's error codes as a table (docs/providers/provider-t.md#errors).
 */
import {
  ANY_PROVIDER_CODE,
  createProviderClient,
  type ProviderClient,
  type ProviderErrorTable,
} from '@pay/core/adapter';
import { checkCredentials, PROVIDER, type ProviderTCredentials, type ResolvedConfig } from './config.js';
import { readEnvelope } from './envelope.js';
import { tokenReplySchema } from './wire.js';

/** Provider T's code for a commit of a transaction that is committed already (docs/providers/provider-t.md#commit). */
export const ALREADY_COMMITTED_CODE = 'TRANSACTION_ALREADY_COMMITTED';

/**
 * Provider T's error codes (docs/providers/provider-t.md#errors). The sandbox answers an unknown transaction with
 * 400 code `697` (test/fixtures/status-unknown-697.json), and any code with HTTP 404 reads the same way: a read of
 * either resolves to `null`. A 404 without Provider T's envelope (a proxy's error page) has no code, so no rule:
 * it throws, never "no such transaction".
 */
export const PROVIDER_T_ERRORS = {
  '697': {
    kind: 'not_found',
    notFound: true,
    advice:
      'Provider T does not know this transaction (Invalid Transaction ID). Check the id: it is the transactionId of createPayment/createCheckout.',
  },
  [ALREADY_COMMITTED_CODE]: { kind: 'conflict' },
  [ANY_PROVIDER_CODE]: [{ status: 404, kind: 'not_found', notFound: true }],
} as const satisfies ProviderErrorTable;

/** The adapter's connection to Provider T: core's provider client and the settings it runs with. */
export type ProviderTClient = ReturnType<typeof createClient>;

/** Creates the client. No I/O until the first call, which logs in first. */
export function createClient(config: ResolvedConfig) {
  const client = createProviderClient({
    provider: PROVIDER,
    baseUrl: config.baseUrl,
    transport: config,
    login: {
      credentials: { clientId: config.clientId, clientSecret: config.clientSecret },
      login,
      check: checkCredentials,
      secrets: ({ clientId, clientSecret }) => [clientSecret, clientId],
      store: config.tokenStore,
      cacheKey: ({ clientId, clientSecret }) => ({
        provider: PROVIDER,
        clientId,
        secret: clientSecret,
        baseUrl: config.baseUrl,
      }),
    },
    requestIdHeader: 'X-Client-Request-Id',
    readEnvelope,
    errors: PROVIDER_T_ERRORS,
    credentialsHint: 'Check PROVIDER_T_CLIENT_ID and PROVIDER_T_CLIENT_SECRET (clientId, clientSecret).',
  });
  return Object.assign(client, { config });
}

/** `GET /oauth/accesstoken` with Basic clientId:clientSecret of one set of credentials, on every retry of it. */
async function login(credentials: ProviderTCredentials, client: ProviderClient) {
  const token = await client.request(tokenReplySchema, {
    call: 'GET /oauth/accesstoken',
    method: 'GET',
    path: '/oauth/accesstoken',
    query: { grant_type: 'client_credentials' },
    auth: { basic: [credentials.clientId, credentials.clientSecret] },
    retrySafe: true,
    credentialsInReply: true,
    context: { call: 'login' },
  });
  return { accessToken: token.access_token, expiresInSeconds: token.expires_in };
}
