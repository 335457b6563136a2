/**
 * Shared helpers of the webhook reliability tests (forgery, load, edge): genuine deliveries of each provider,
 * an in-process Provider T upstream (token + status) for its webhook re-reads, a bounded worker pool, a hang
 * guard and an unhandled-rejection recorder.
 */
import { Agent, request as httpRequest } from 'node:http';
import { fileURLToPath } from 'node:url';
import type { EdgeVM } from '@edge-runtime/vm';
import { PayError, type WebhookRequest } from '@pay/core';
import { createProviderN, type ProviderNAdapter } from '@pay/provider-n';
import { type ProviderNWebhookPayload, signProviderNWebhook } from '@pay/provider-n/testing';
import { createProviderR, type ProviderRAdapter } from '@pay/provider-r';
import { buildProviderRPush, type ProviderRSimulator } from '@pay/provider-r/testing';
import { createProviderT, type ProviderTAdapter } from '@pay/provider-t';
import {
  generateProviderTKeyPair,
  type ProviderTKeyPair,
  providerTStatusEvent,
  sampleTransferMetadata,
  signedProviderTWebhook,
} from '@pay/provider-t/testing';
import { build } from 'esbuild';

// ---------------------------------------------------------------------------------------------------------------
// Generic helpers

/** The outcome of a promise, never rejecting. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** Settles `promise` into an {@link Outcome}; rejects only when it does not settle within `ms` (a hang). */
export async function settle<T>(promise: Promise<T>, ms = 10_000, what = 'the call'): Promise<Outcome<T>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms (hang)`)), ms);
  });
  try {
    return await Promise.race([
      promise.then(
        (value) => ({ ok: true as const, value }),
        (error: unknown) => ({ ok: false as const, error }),
      ),
      hang,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** A short description of an error for assertion messages (class, code, reason, message). */
export function describeError(error: unknown): string {
  if (PayError.isInstance(error)) {
    const reason = (error as { reason?: string }).reason;
    return `${error.name}(${error.code}${reason ? `/${reason}` : ''}): ${error.message}`;
  }
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** Runs `task(i)` for i in [0, count) with at most `concurrency` in flight; resolves when all are done. */
export async function runPool(
  count: number,
  concurrency: number,
  task: (index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const index = next;
      next += 1;
      await task(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

/** Records unhandled rejections and uncaught exceptions of the process while a scenario runs. */
export function recordUnhandled(): { readonly errors: unknown[]; stop(): void } {
  const errors: unknown[] = [];
  const onRejection = (reason: unknown) => errors.push(reason);
  const onException = (error: unknown) => errors.push(error);
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return {
    errors,
    stop() {
      process.off('unhandledRejection', onRejection);
      process.off('uncaughtException', onException);
    },
  };
}

/**
 * A keep-alive HTTP poster for load runs (node:http with a bounded agent is several times cheaper per request
 * than fetch, so the client does not dominate what is measured). Resolves with the reply status.
 */
export function createPoster(maxSockets: number): {
  post(url: string, body: string | Uint8Array, headers: Record<string, string>): Promise<number>;
  close(): void;
} {
  const agent = new Agent({ keepAlive: true, maxSockets });
  return {
    post: (url, body, headers) =>
      new Promise<number>((resolve, reject) => {
        const req = httpRequest(url, { method: 'POST', agent, headers }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end(body);
      }),
    close: () => agent.destroy(),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Provider R

/** An adapter pointed at a Provider R simulator, with no retries (a refused confirmation stays refused). */
export function providerRAdapterFor(simulator: ProviderRSimulator, retry = 0): ProviderRAdapter {
  return createProviderR(simulator.adapterConfig({ retry }));
}

/** A pending payment created in the simulator through the adapter; `paid` moves it to PAID. */
export async function providerRTransaction(
  simulator: ProviderRSimulator,
  adapter: ProviderRAdapter,
  options: { paid?: boolean; amount?: number } = {},
): Promise<string> {
  const payment = await adapter.createPayment({
    customer: { id: 'cust-rel' },
    item_id: 'order-rel',
    amount: options.amount ?? 100, // 100 CZK in the standard unit (the books hold price 10000)
    provider_metadata: { email: 'payer@example.com' },
  });
  if (options.paid ?? true) simulator.pay(payment.id);
  return payment.id;
}

/** The genuine push the provider would send for the transaction's current state (as the simulator holds it). */
export function providerRPushFor(
  simulator: ProviderRSimulator,
  transId: string,
  format: 'form' | 'json' = 'form',
): { body: string; headers: Record<string, string> } {
  const transaction = simulator.transaction(transId);
  if (!transaction) throw new Error(`no transaction ${transId}`);
  return buildProviderRPush(
    {
      ...simulator.credentials,
      transId,
      status: transaction.status,
      price: transaction.price,
      curr: transaction.curr,
      test: transaction.test,
      label: transaction.label,
      ...(transaction.refId === undefined ? {} : { refId: transaction.refId }),
      ...(transaction.payerId === undefined ? {} : { payerId: transaction.payerId }),
      method: 'CARD',
      email: transaction.email,
    },
    { format },
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Provider N

export const N_WEBHOOK_SECRET = 'pn-rel-webhook-secret-91c4e2';

/** An adapter whose webhook verification needs no upstream (Provider N verifies by HMAC only). */
export function providerNAdapter(
  overrides: { baseUrl?: string; fetch?: typeof fetch } = {},
): ProviderNAdapter {
  return createProviderN({
    apiKey: 'PN_REL_API_KEY',
    secretKey: 'PN_REL_SECRET_KEY_4411',
    isSandbox: true,
    retry: 0,
    ...overrides,
  });
}

/** A `SUCCESSFUL_TRANSACTION` payload as the provider posts it. */
export function providerNTransactionPayload(
  transactionReference: string,
  amount = 5000,
  extra: Record<string, unknown> = {},
): ProviderNWebhookPayload {
  return {
    eventType: 'SUCCESSFUL_TRANSACTION',
    eventData: {
      transactionReference,
      paymentReference: `ref-${transactionReference}`,
      amountPaid: amount,
      totalPayable: amount,
      settlementAmount: amount,
      paidOn: '2026-11-22 10:20:11',
      paymentStatus: 'PAID',
      paymentDescription: 'Order',
      currency: 'NGN',
      paymentMethod: 'CARD',
      customer: { email: 'ada@example.com', name: 'Ada Obi' },
      metaData: { orderId: 'A-1' },
      ...extra,
    },
  };
}

/** A signed Provider N delivery of `body` (any bytes), ready for `handle()`. */
export async function signedProviderN(
  body: string | Uint8Array,
  secret = N_WEBHOOK_SECRET,
  fullUrl = 'https://shop.example/webhooks/provider-n',
): Promise<{ body: string | Uint8Array; headersAsObject: Record<string, string>; fullUrl: string }> {
  return {
    body,
    headersAsObject: {
      'content-type': 'application/json',
      'providerN-signature': await signProviderNWebhook(body, secret),
    },
    fullUrl,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Provider T

export const T_CREDENTIALS = {
  clientId: 'pt-rel-client-0c1d',
  clientSecret: 'pt-rel-secret-77aa-19be',
  agentPartnerId: '30014857',
  operatorId: 'op-reliability',
} as const;

/** A test key pair for Provider T webhooks, generated once per process (RSA key generation is slow). */
let keyPair: ProviderTKeyPair | undefined;
export function providerTKeys(): ProviderTKeyPair {
  keyPair ??= generateProviderTKeyPair();
  return keyPair;
}

/** A Provider T status reply (docs/providers/provider-t.md#status). */
export function providerTStatusReply(transactionId: string, transactionStatus: string, value = 100) {
  const money = (amount: number, currencyCode: string) => ({ value: amount, currencyCode });
  return {
    transactionId,
    referenceNumber: '48213907',
    transactionSendDateTime: '2026-11-22T10:15:30.123',
    expectedPayoutDate: '2026-11-23',
    transactionStatus,
    originatingCountryCode: 'USA',
    destinationCountryCode: 'MEX',
    serviceOptionCode: 'WILL_CALL',
    serviceOptionName: '10 Minute Service',
    sendAmount: { amount: money(value, 'USD'), fees: money(4.99, 'USD'), total: money(value + 4.99, 'USD') },
    receiveAmount: { amount: money(value * 17.25, 'MXN'), fxRate: 17.25 },
    sender: { name: { firstName: 'Maria', lastName: 'Lopez' } },
    receiver: { name: { firstName: 'Jose', lastName: 'Lopez' } },
  };
}

/** The parts of a Response constructor the fake upstreams need (the Node one, or an Edge VM's). */
export type ResponseConstructor = new (body: string, init: ResponseInit) => Response;

/**
 * An in-process Provider T upstream for webhook re-reads: the token endpoint and the status read. Every
 * transaction named is known, in `statusOf(id)` (default `SENT`); `undefined` answers 404.
 */
export interface FakeProviderT {
  fetch: typeof fetch;
  readonly logins: number;
  readonly statusReads: number;
}

export function fakeProviderTUpstream(
  statusOf: (transactionId: string) => string | undefined = () => 'SENT',
  ResponseClass: ResponseConstructor = Response,
): FakeProviderT {
  let logins = 0;
  let statusReads = 0;
  const reply = (status: number, body: unknown) =>
    new ResponseClass(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  const fake = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? String(input) : input.url);
    const method = (
      init?.method ?? (typeof input === 'object' && 'method' in input ? input.method : 'GET')
    ).toUpperCase();
    if (method === 'GET' && url.pathname === '/oauth/accesstoken') {
      logins += 1;
      return reply(200, { access_token: `tok-${logins}`, expires_in: 3599, token_type: 'BearerToken' });
    }
    const match = /^\/status\/v1\/transactions\/([^/]+)$/.exec(url.pathname);
    if (method === 'GET' && match) {
      statusReads += 1;
      const transactionId = decodeURIComponent(match[1] ?? '');
      const status = statusOf(transactionId);
      if (status === undefined) {
        return reply(404, {
          errors: [{ category: 'NOT_FOUND', code: 'NOT_FOUND', message: 'Unknown transaction' }],
        });
      }
      return reply(200, providerTStatusReply(transactionId, status));
    }
    return reply(404, {
      errors: [{ category: 'NOT_FOUND', code: 'NO_ROUTE', message: `${method} ${url.pathname}` }],
    });
  };
  return {
    fetch: fake as typeof fetch,
    get logins() {
      return logins;
    },
    get statusReads() {
      return statusReads;
    },
  };
}

/** `createPayment` params of a complete Provider T transfer (a simulator commits it). */
export function providerTTransferParams(amount = 100) {
  return {
    amount,
    currency: 'USD',
    provider_metadata: sampleTransferMetadata,
  };
}

/** A Provider T adapter that verifies with the test key and re-reads status through `fetch`. */
export function providerTAdapter(
  fetchImpl: typeof fetch,
  overrides: { webhookHost?: string; baseUrl?: string } = {},
): ProviderTAdapter {
  return createProviderT({
    ...T_CREDENTIALS,
    isSandbox: true,
    retry: 0,
    webhookPublicKey: providerTKeys().publicKey,
    fetch: fetchImpl,
    ...overrides,
  });
}

/** A genuine, signed Provider T status event delivery. */
export function signedProviderT(options: {
  transactionId: string;
  status?: string;
  eventId?: string;
  url?: string;
  timestamp?: number;
  host?: string;
}): { body: string; headersAsObject: Record<string, string>; fullUrl: string } {
  return signedProviderTWebhook({
    event: providerTStatusEvent({
      transactionId: options.transactionId,
      transactionStatus: options.status ?? 'SENT',
      ...(options.eventId ? { eventId: options.eventId } : {}),
    }),
    url: options.url ?? 'https://shop.example/webhooks/provider-t',
    privateKey: providerTKeys().privateKey,
    ...(options.timestamp === undefined ? {} : { timestamp: options.timestamp }),
    ...(options.host === undefined ? {} : { host: options.host }),
  });
}

/** Signs any raw body for Provider T (for junk that must get past the signature). */
export function signedProviderTBody(
  body: string,
  url = 'https://shop.example/webhooks/provider-t',
): { body: string; headersAsObject: Record<string, string>; fullUrl: string } {
  return signedProviderTWebhook({ event: body, url, privateKey: providerTKeys().privateKey });
}

// ---------------------------------------------------------------------------------------------------------------
// Edge VM

/**
 * Evaluates one more package entry into an existing Edge VM (bundled exactly as `loadInEdgeRuntime` does:
 * browser platform, so a `node:` import fails the build) and returns its exports. Used to put `@pay/core`'s
 * handler next to an adapter in the same VM.
 */
export async function addToEdgeRuntime<T>(vm: EdgeVM, entry: string, globalName: string): Promise<T> {
  const result = await build({
    entryPoints: [fileURLToPath(import.meta.resolve(entry))],
    bundle: true,
    format: 'iife',
    globalName,
    platform: 'browser',
    conditions: ['@pay/source'],
    write: false,
    logLevel: 'silent',
  });
  vm.evaluate(`${result.outputFiles[0]!.text};globalThis.${globalName} = ${globalName};`);
  return vm.context[globalName] as T;
}

/** The request shape `handle()` takes, re-exported for the test files. */
export type Delivery = WebhookRequest;
