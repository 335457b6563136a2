/**
 * The Provider N client (docs/providers/provider-n.md#envelope, docs/providers/provider-n.md#authentication):
 * core's provider client with a Bearer token from core's token manager, the envelope reader and the refusal codes
 * as data.
 */
import { createProviderClient, type ProviderClient, type ProviderErrorTable } from '@pay/core/adapter';
import {
  checkCredentials,
  PROVIDER,
  PROVIDER_N_BASE_URLS,
  type ProviderNConfig,
  type ProviderNCredentials,
} from './config.js';
import {
  CREDENTIALS_HINT,
  DUPLICATE_REFERENCE_MESSAGE,
  REQUEST_ID_HEADER,
  readEnvelope,
  readLogin,
} from './envelope.js';

/**
 * Provider code → rule. `99`, the catch-all, is "no such transaction" only with HTTP 404
 * (docs/providers/provider-n.md#transaction-query); a 404 without the envelope (a proxy's page) has no code, so a
 * read throws it. Refund codes: docs/providers/provider-n.md#refunds.
 */
export const PROVIDER_N_ERRORS: ProviderErrorTable = {
  '99': [
    { status: 404, kind: 'not_found', notFound: true },
    { message: DUPLICATE_REFERENCE_MESSAGE, kind: 'conflict' },
  ],
  R1: {
    kind: 'not_found',
    advice: 'the transaction to refund was not found; check payment_id (the transactionReference).',
  },
  R2: { advice: 'this transaction cannot be refunded (not paid, or already fully refunded).' },
  R3: { advice: 'the refund is above what remains refundable on the transaction; lower amount.' },
  R4: { advice: 'the refund is below the minimum refund amount (10.00 NGN); raise amount.' },
  R5: { advice: 'the merchant balance is too low for this refund; fund the wallet and try again.' },
  // The refund status read's "no refund was initiated with the supplied refund reference".
  R7: { kind: 'not_found', notFound: true },
  // initiate-refund's "Supplied refund reference already exists for the merchant".
  R9: { kind: 'conflict' },
};

/** Core's provider client, whose `updateCredentials` logs in with new credentials from the next call on. */
export type ProviderNClient = ProviderClient & { updateCredentials(credentials: ProviderNCredentials): void };

/** Builds the client: no I/O until the first call, which logs in first. */
export function createClient(config: ProviderNConfig): ProviderNClient {
  const baseUrl =
    config.baseUrl ?? (config.isSandbox ? PROVIDER_N_BASE_URLS.sandbox : PROVIDER_N_BASE_URLS.production);
  return createProviderClient({
    provider: PROVIDER,
    baseUrl,
    transport: config,
    login: {
      credentials: { apiKey: config.apiKey, secretKey: config.secretKey },
      login,
      check: checkCredentials,
      secrets: ({ apiKey, secretKey }) => [apiKey, secretKey],
      store: config.tokenStore,
      cacheKey: ({ apiKey, secretKey }) => ({
        provider: PROVIDER,
        clientId: apiKey,
        secret: secretKey,
        baseUrl,
      }),
    },
    // Not part of Provider N's contract, but one id per logical call lets its support trace a call.
    requestIdHeader: REQUEST_ID_HEADER,
    providerRequestIdHeader: REQUEST_ID_HEADER,
    readEnvelope,
    errors: PROVIDER_N_ERRORS,
    credentialsHint: `Check ${CREDENTIALS_HINT}.`,
  });
}

/** `POST /v1/auth/login` with Basic apiKey:secretKey; it only reads, so it is retried like a GET. */
async function login(credentials: ProviderNCredentials, client: ProviderClient) {
  return readLogin(
    await client.send({
      call: 'login',
      method: 'POST',
      path: '/v1/auth/login',
      auth: { basic: [credentials.apiKey, credentials.secretKey] },
      retrySafe: true,
      credentialsInReply: true,
    }),
  );
}
