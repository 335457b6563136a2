/**
 * Webhook forgery, property-based (docs/architecture.md#test-suites): for Providers N, T and R, a genuine delivery
 * is accepted; any mutation of what authenticates it is refused with `WebhookVerificationError` and runs no
 * callback; junk of any shape (bytes, ~1 MB bodies, deep JSON, wrong types, non-UTF-8) never ends in anything but
 * a `PayError`, never hangs, and never puts a malformed record in front of a callback; a redelivered event is
 * dispatched once.
 */
import { sign } from 'node:crypto';
import {
  createMemoryDeduplicationStore,
  createPay,
  type DeduplicationStore,
  NORMALISED_EVENT_NAMES,
  PayError,
  type PayEvent,
  toNodeListener,
  type WebhookHandler,
  WebhookHandlerError,
  type WebhookRequest,
  type WebhookResult,
  WebhookVerificationError,
} from '@pay/core';
import { type LoopbackServer, startLoopbackServer } from '@pay/core/testing';
import { createProviderN } from '@pay/provider-n';
import { signProviderNWebhook, startProviderNSimulator } from '@pay/provider-n/testing';
import { STATUS_EVENTS as PROVIDER_R_STATUS_EVENTS, type ProviderRAdapter } from '@pay/provider-r';
import { type ProviderRSimulator, startProviderRSimulator } from '@pay/provider-r/testing';
import { createProviderT, STATUS_EVENTS as PROVIDER_T_STATUS_EVENTS } from '@pay/provider-t';
import {
  generateProviderTKeyPair,
  signProviderTWebhook,
  startProviderTSimulator,
} from '@pay/provider-t/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  describeError,
  fakeProviderTUpstream,
  N_WEBHOOK_SECRET,
  type Outcome,
  providerNAdapter,
  providerNTransactionPayload,
  providerRAdapterFor,
  providerRPushFor,
  providerRTransaction,
  providerTAdapter,
  providerTKeys,
  providerTTransferParams,
  settle,
  signedProviderN,
  signedProviderT,
  signedProviderTBody,
} from './support-webhooks.js';

/** Runs per property: enough to find shallow holes, few enough that the file runs in seconds. */
const RUNS = 120;
/** Runs of the expensive properties (~1 MB bodies, very deep JSON). */
const HEAVY_RUNS = 8;

// ---------------------------------------------------------------------------------------------------------------
// Shared machinery

type AnyHandler = WebhookHandler;

interface Recording {
  handler: AnyHandler;
  /** Every event any callback received, in order. */
  seen: PayEvent[];
}

/** A handler with one recording callback on every event name the adapter can raise. */
function recording(
  adapter: { webhooks: { rawEventNames: readonly string[]; eventNames?: readonly string[] } },
  webhookSecret: string | null,
  deduplicate?: DeduplicationStore,
): Recording {
  const seen: PayEvent[] = [];
  const pay = createPay(adapter as Parameters<typeof createPay>[0]);
  const handler = pay.webhooks.setup({
    webhookSecret,
    ...(deduplicate ? { deduplicate } : {}),
  }) as AnyHandler;
  const normalised = adapter.webhooks.eventNames ?? NORMALISED_EVENT_NAMES;
  handler.on([...normalised, ...adapter.webhooks.rawEventNames] as never, (event: PayEvent) => {
    seen.push(event);
  });
  return { handler, seen };
}

/** Handles `request` and asserts it was refused with `WebhookVerificationError` and ran no callback. */
async function expectRefused(
  { handler, seen }: Recording,
  request: WebhookRequest,
  reasons?: readonly string[],
): Promise<WebhookVerificationError> {
  const before = seen.length;
  const outcome = await settle(handler.handle(request), 10_000, 'handle()');
  expect(outcome.ok, 'a forged delivery was accepted').toBe(false);
  const error = (outcome as { error: unknown }).error;
  expect(WebhookVerificationError.isInstance(error), describeError(error)).toBe(true);
  const verification = error as WebhookVerificationError;
  if (reasons) expect(reasons, describeError(error)).toContain(verification.reason);
  expect(verification.status).toBe(verification.retryable ? 503 : 400);
  expect(seen.length, 'a callback ran for a refused delivery').toBe(before);
  return verification;
}

/** Handles `request` and asserts it was accepted; returns the events dispatched. */
async function expectAccepted({ handler, seen }: Recording, request: WebhookRequest): Promise<PayEvent[]> {
  const before = seen.length;
  const outcome = await settle(handler.handle(request), 10_000, 'handle()');
  if (!outcome.ok) expect.fail(`a genuine delivery was refused: ${describeError(outcome.error)}`);
  const { events } = (outcome as { value: { events: PayEvent[] } }).value;
  expect(seen.slice(before)).toEqual(events);
  return events;
}

const PAYMENT_STATUSES = [
  'pending',
  'processing',
  'requires_action',
  'requires_capture',
  'succeeded',
  'canceled',
  'failed',
];
const SUBSCRIPTION_STATUSES = ['pending', 'active', 'canceled', 'failed', 'expired'];

/** A normalised event's record is well formed, whatever junk the (authenticated) payload carried. */
function expectWellFormed(event: PayEvent): void {
  expect(typeof event.id).toBe('string');
  expect(event.id.length).toBeGreaterThan(0);
  expect(Number.isFinite(event.created)).toBe(true);
  if (event.is_raw) return;
  const data = event.data as Record<string, unknown>;
  expect(typeof data.id, `${event.type} id`).toBe('string');
  const metadata = data.metadata as Record<string, unknown>;
  expect(typeof metadata).toBe('object');
  for (const value of Object.values(metadata))
    expect(typeof value, 'metadata values are strings').toBe('string');
  if (event.type.startsWith('payment.')) {
    expect(Number.isFinite(data.amount), `${event.type} amount ${String(data.amount)}`).toBe(true);
    expect(typeof data.currency).toBe('string');
    expect(PAYMENT_STATUSES).toContain(data.status);
  } else if (event.type === 'refund.created') {
    expect(Number.isFinite(data.amount)).toBe(true);
    expect(['pending', 'succeeded', 'failed']).toContain(data.status);
  } else if (event.type === 'invoice.generated') {
    expect(Number.isFinite(data.amount_paid)).toBe(true);
  } else if (event.type.startsWith('subscription.')) {
    expect(SUBSCRIPTION_STATUSES).toContain(data.status);
  }
}

/** Junk outcome rule: either a `PayError`, or accepted with well-formed records. Never a hang. */
function expectPayErrorOrWellFormed(outcome: Outcome<{ events: PayEvent[] }>): void {
  if (outcome.ok) {
    for (const event of outcome.value.events) expectWellFormed(event);
  } else {
    expect(PayError.isInstance(outcome.error), describeError(outcome.error)).toBe(true);
  }
}

/** A change to raw bytes that always yields different bytes. */
type ByteMutation =
  | { kind: 'flip'; at: number; bit: number }
  | { kind: 'insert'; at: number; byte: number }
  | { kind: 'delete'; at: number; length: number }
  | { kind: 'truncate'; at: number }
  | { kind: 'append'; bytes: Uint8Array };

const byteMutation: fc.Arbitrary<ByteMutation> = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 8 }) }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('append' as const), bytes: fc.uint8Array({ minLength: 1, maxLength: 8 }) }),
);

function mutate(input: string | Uint8Array, mutation: ByteMutation): Uint8Array {
  const bytes = typeof input === 'string' ? new TextEncoder().encode(input) : input;
  const at = mutation.kind === 'append' ? 0 : mutation.at % bytes.length;
  switch (mutation.kind) {
    case 'flip': {
      const copy = bytes.slice();
      copy[at] = (copy[at] ?? 0) ^ (1 << mutation.bit);
      return copy;
    }
    case 'insert':
      return new Uint8Array([...bytes.subarray(0, at), mutation.byte, ...bytes.subarray(at)]);
    case 'delete':
      return new Uint8Array([...bytes.subarray(0, at), ...bytes.subarray(at + mutation.length)]);
    case 'truncate':
      return bytes.slice(0, at);
    case 'append':
      return new Uint8Array([...bytes, ...mutation.bytes]);
  }
}

const HEX = '0123456789abcdef';

/** A change to a lower-case hex signature that changes its canonical (trimmed, lower-cased) value. */
const hexSignatureMutation = fc.oneof(
  fc.record({ kind: fc.constant('digit' as const), at: fc.nat(), shift: fc.integer({ min: 1, max: 15 }) }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant('extend' as const),
    extra: fc.string({ unit: fc.constantFrom(...HEX), minLength: 1, maxLength: 8 }),
  }),
  fc.record({ kind: fc.constant('replace' as const), value: fc.string({ maxLength: 200 }) }),
);

function mutateHex(
  signature: string,
  mutation: typeof hexSignatureMutation extends fc.Arbitrary<infer M> ? M : never,
) {
  switch (mutation.kind) {
    case 'digit': {
      const at = mutation.at % signature.length;
      const digit = HEX[(HEX.indexOf(signature[at] ?? '0') + mutation.shift) % 16] ?? '0';
      return signature.slice(0, at) + digit + signature.slice(at + 1);
    }
    case 'truncate':
      return signature.slice(0, mutation.at % signature.length);
    case 'extend':
      return signature + mutation.extra;
    case 'replace':
      return mutation.value.trim().toLowerCase() === signature ? `${mutation.value}0` : mutation.value;
  }
}

/** Deeply nested JSON (arrays or objects) of the given depth. */
function deepJson(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array'
    ? `${'['.repeat(depth)}${']'.repeat(depth)}`
    : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** JSON values of the wrong type for any field: what a confused or hostile sender could put anywhere. */
const wrongType = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.double(),
  fc.integer(),
  fc.constantFrom(Number.MAX_SAFE_INTEGER * 10, -1, 0, 1e308),
  fc.string({ maxLength: 20 }),
  fc.constantFrom('NaN', 'Infinity', '-0', '1e999', '', ' ', '0x10', '10.000000001'),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 3 }),
  fc.jsonValue({ maxDepth: 3 }),
);

/** Invalid UTF-8 sequences. */
const invalidUtf8 = fc.constantFrom(
  [0xff],
  [0xc3, 0x28],
  [0xe2, 0x82],
  [0xf0, 0x28, 0x8c, 0xbc],
  [0xed, 0xa0, 0x80],
  [0x80],
);

function withInvalidUtf8(text: string, at: number, sequence: readonly number[]): Uint8Array {
  const bytes = new TextEncoder().encode(text);
  const index = at % (bytes.length + 1);
  return new Uint8Array([...bytes.subarray(0, index), ...sequence, ...bytes.subarray(index)]);
}

/** Arbitrary header objects, for junk deliveries. */
const junkHeaders = fc.dictionary(
  fc.oneof(
    fc.constantFrom('content-type', 'providerN-signature', 'signature', 'Signature', 'PROVIDERN-SIGNATURE'),
    fc.string({ minLength: 1, maxLength: 20 }),
  ),
  fc.oneof(fc.string({ maxLength: 200 }), fc.array(fc.string({ maxLength: 50 }), { maxLength: 3 })),
  { maxKeys: 5 },
);

const junkBody = fc.oneof(
  fc.uint8Array({ maxLength: 2048 }),
  fc.string({ maxLength: 2048 }),
  fc.string({ unit: 'binary', maxLength: 512 }),
  fc.jsonValue({ maxDepth: 6 }).map((value) => JSON.stringify(value) ?? 'null'),
);

/** A URL that is not always a URL. */
const junkUrl = fc.oneof(fc.webUrl(), fc.string({ maxLength: 50 }), fc.constant(''));

// ---------------------------------------------------------------------------------------------------------------
// Provider N: HMAC-SHA512 of the raw body in `providerN-signature`

describe('Provider N webhook forgery', () => {
  const adapter = providerNAdapter();
  const genuineBody = JSON.stringify(providerNTransactionPayload('PN|20261122101530|000123', 5000));

  it('accepts every genuine delivery, whatever the signature header name case and body form', async () => {
    const recorder = recording(adapter, N_WEBHOOK_SECRET);
    await fc.assert(
      fc.asyncProperty(
        fc.stringMatching(/^PN\|\d{14}\|\d{6}$/),
        fc.integer({ min: 1, max: 100_000_000 }),
        fc.mixedCase(fc.constant('providern-signature')),
        fc.boolean(),
        async (reference, minor, headerName, asBytes) => {
          const amount = minor / 100;
          const body = JSON.stringify(providerNTransactionPayload(reference, amount));
          const signed = await signedProviderN(asBytes ? new TextEncoder().encode(body) : body);
          const signature = signed.headersAsObject['providerN-signature'] ?? '';
          const events = await expectAccepted(recorder, {
            ...signed,
            headersAsObject: { 'content-type': 'application/json', [headerName]: signature },
          });
          expect(events.map((event) => event.type)).toEqual([
            'payment.created',
            'providerN.SUCCESSFUL_TRANSACTION',
          ]);
          expect(events[0]?.data).toMatchObject({
            id: reference,
            amount,
            currency: 'NGN',
            status: 'succeeded',
          });
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('refuses any mutation of the signed body bytes', async () => {
    const recorder = recording(adapter, N_WEBHOOK_SECRET);
    const genuine = await signedProviderN(genuineBody);
    await fc.assert(
      fc.asyncProperty(byteMutation, async (mutation) => {
        await expectRefused(recorder, { ...genuine, body: mutate(genuineBody, mutation) }, [
          'invalid_signature',
          'malformed_payload',
        ]);
      }),
      { numRuns: RUNS },
    );
  });

  it("refuses any change to the signature header's value, a missing header and a renamed one", async () => {
    const recorder = recording(adapter, N_WEBHOOK_SECRET);
    const genuine = await signedProviderN(genuineBody);
    const signature = genuine.headersAsObject['providerN-signature'] ?? '';
    await fc.assert(
      fc.asyncProperty(hexSignatureMutation, async (mutation) => {
        const forged = mutateHex(signature, mutation);
        await expectRefused(
          recorder,
          {
            ...genuine,
            headersAsObject: { 'content-type': 'application/json', 'providerN-signature': forged },
          },
          ['invalid_signature', 'missing_signature'],
        );
      }),
      { numRuns: RUNS },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(
          'providerN-signatures',
          'providern_signature',
          'x-providern-signature',
          'signature',
          'sig',
        ),
        async (name) => {
          await expectRefused(recorder, { ...genuine, headersAsObject: { [name]: signature } }, [
            'missing_signature',
          ]);
        },
      ),
      { numRuns: 10 },
    );
  });

  it('refuses a body signed with any other secret, and a genuine body checked with any other secret', async () => {
    const recorder = recording(adapter, N_WEBHOOK_SECRET);
    await fc.assert(
      fc.asyncProperty(
        // A blank secret is refused at setup and a configured one is used trimmed (docs/architecture.md#configuration),
        // so the other secrets are the ones that could be configured at all.
        fc
          .string({ minLength: 1, maxLength: 64 })
          .filter((secret) => secret.trim() !== '' && secret.trim() !== N_WEBHOOK_SECRET),
        async (otherSecret) => {
          await expectRefused(recorder, await signedProviderN(genuineBody, otherSecret), [
            'invalid_signature',
          ]);
          const wrongReceiver = recording(adapter, otherSecret);
          await expectRefused(wrongReceiver, await signedProviderN(genuineBody), ['invalid_signature']);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('refuses unsigned junk of any shape with WebhookVerificationError, without hanging', async () => {
    const recorder = recording(adapter, N_WEBHOOK_SECRET);
    await fc.assert(
      fc.asyncProperty(junkBody, junkHeaders, junkUrl, async (body, headersAsObject, fullUrl) => {
        await expectRefused(recorder, { body, headersAsObject, fullUrl });
      }),
      { numRuns: RUNS },
    );
  });

  it('signed junk with wrong types ends in a PayError or well-formed records, never a TypeError', async () => {
    const recorder = recording(adapter, N_WEBHOOK_SECRET);
    const eventTypes = [
      'SUCCESSFUL_TRANSACTION',
      'SUCCESSFUL_TRANSACTION_OFFLINE',
      'REJECTED_PAYMENT',
      'SETTLEMENT',
      'SUCCESSFUL_REFUND',
      'FAILED_REFUND',
      'MANDATE_UPDATE',
      'CUSTOMER_CREATED',
    ];
    const fields = [
      'transactionReference',
      'paymentReference',
      'amountPaid',
      'totalPayable',
      'paymentStatus',
      'currency',
      'customer',
      'metaData',
      'settlementReference',
      'transactions',
      'amount',
      'refundReference',
      'refundAmount',
      'refundStatus',
      'mandateCode',
      'mandateStatus',
      'mandateAmount',
      'customerEmail',
    ];
    const genuineData = providerNTransactionPayload('PN|1|1').eventData;
    const payload = fc.oneof(
      // A genuine payload with some fields replaced by values of the wrong type.
      fc.record({
        eventType: fc.constantFrom(...eventTypes),
        eventData: fc
          .dictionary(fc.constantFrom(...fields), wrongType, { maxKeys: 6 })
          .map((junk) => ({ ...genuineData, ...junk })),
      }),
      // Any shape at all.
      fc.record({
        eventType: fc.oneof(fc.constantFrom(...eventTypes), wrongType),
        eventData: fc.oneof(wrongType, fc.dictionary(fc.constantFrom(...fields), wrongType, { maxKeys: 8 })),
      }),
      fc.jsonValue({ maxDepth: 5 }),
    );
    await fc.assert(
      fc.asyncProperty(payload, async (value) => {
        const outcome = await settle(
          recorder.handler.handle(await signedProviderN(JSON.stringify(value) ?? 'null')),
        );
        expectPayErrorOrWellFormed(outcome);
      }),
      { numRuns: RUNS * 2 },
    );
  });

  it('signed random bytes and non-UTF-8 bodies end in WebhookVerificationError', async () => {
    const recorder = recording(adapter, N_WEBHOOK_SECRET);
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 4096 }), async (bytes) => {
        const outcome = await settle(recorder.handler.handle(await signedProviderN(bytes)));
        expectPayErrorOrWellFormed(outcome);
      }),
      { numRuns: RUNS },
    );
    await fc.assert(
      fc.asyncProperty(fc.nat(), invalidUtf8, async (at, sequence) => {
        const body = withInvalidUtf8(genuineBody, at, sequence);
        const error = await expectRefused(recorder, await signedProviderN(body), ['malformed_payload']);
        expect(error.message).toMatch(/UTF-8/);
      }),
      { numRuns: RUNS },
    );
  });

  it('signed deep JSON and bodies up to ~1 MB end in a PayError or well-formed records, in bounded time', async () => {
    const recorder = recording(adapter, N_WEBHOOK_SECRET);
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1_000, max: 300_000 }),
        fc.constantFrom('array' as const, 'object' as const),
        fc.constantFrom('body', 'eventData', 'metaData', 'customer'),
        async (depth, kind, where) => {
          const deep = deepJson(depth, kind);
          const body =
            where === 'body'
              ? deep
              : where === 'eventData'
                ? `{"eventType":"SUCCESSFUL_TRANSACTION","eventData":${deep}}`
                : JSON.stringify(providerNTransactionPayload('PN|deep|1')).replace(
                    where === 'metaData'
                      ? '{"orderId":"A-1"}'
                      : '{"email":"ada@example.com","name":"Ada Obi"}',
                    deep,
                  );
          expectPayErrorOrWellFormed(await settle(recorder.handler.handle(await signedProviderN(body))));
        },
      ),
      { numRuns: HEAVY_RUNS * 2 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 256 * 1024, max: 1024 * 1024 }),
        fc.boolean(),
        fc.boolean(),
        async (size, asEvent, signed) => {
          const body = asEvent
            ? JSON.stringify(
                providerNTransactionPayload('PN|huge|1', 10, { metaData: { note: 'x'.repeat(size) } }),
              )
            : 'x'.repeat(size);
          const request = signed
            ? await signedProviderN(body)
            : {
                body,
                headersAsObject: { 'providerN-signature': 'ab'.repeat(64) },
                fullUrl: 'https://shop.example/',
              };
          const outcome = await settle(recorder.handler.handle(request));
          if (!signed) expect(outcome.ok).toBe(false);
          expectPayErrorOrWellFormed(outcome);
        },
      ),
      { numRuns: HEAVY_RUNS },
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Provider T: RSA-SHA256 over "<t>.<host>.<raw body>" in `Signature: t=…, s=…`

describe('Provider T webhook forgery', () => {
  // The status read confirms what a genuine push said (events come from the confirmed status,
  // docs/architecture.md#events).
  const pushedStatus = new Map<string, string>();
  const upstream = fakeProviderTUpstream((id) =>
    id.startsWith('unknown-') ? undefined : (pushedStatus.get(id) ?? 'SENT'),
  );
  const adapter = providerTAdapter(upstream.fetch);
  const statuses = Object.keys(PROVIDER_T_STATUS_EVENTS) as (keyof typeof PROVIDER_T_STATUS_EVENTS)[];
  const genuine = () => signedProviderT({ transactionId: 'tx-1', eventId: 'evt-1' });
  const nowSeconds = () => Math.floor(Date.now() / 1000);
  let otherKey: string;

  beforeAll(() => {
    providerTKeys();
    otherKey = generateProviderTKeyPair().privateKey;
  });

  it('accepts every genuine delivery: any status, event id, host and fresh timestamp', async () => {
    const recorder = recording(adapter, null);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...statuses, 'SOME_NEW_STATUS'),
        fc.uuid(),
        fc.oneof(fc.domain(), fc.constantFrom('127.0.0.1:8443', 'shop.example', '[::1]:3000')),
        // Within the freshness window with a minute of margin: 64 minutes old to 4 minutes ahead.
        fc.integer({ min: -64 * 60, max: 4 * 60 }),
        fc.mixedCase(fc.constant('signature')),
        async (status, eventId, host, offset, headerName) => {
          pushedStatus.set(`tx-${eventId}`, status);
          const signed = signedProviderT({
            transactionId: `tx-${eventId}`,
            status,
            eventId,
            url: `https://${host}/hooks/t?x=1`,
            timestamp: nowSeconds() + offset,
          });
          const events = await expectAccepted(recorder, {
            ...signed,
            headersAsObject: {
              'content-type': 'application/json',
              [headerName]: signed.headersAsObject.signature,
            },
          });
          const normalised = PROVIDER_T_STATUS_EVENTS[status as keyof typeof PROVIDER_T_STATUS_EVENTS];
          expect(events.map((event) => event.type)).toEqual([
            ...(normalised ? [normalised] : []),
            'providerT.TRANSACTION_STATUS_EVENT',
          ]);
          expect(new Set(events.map((event) => event.id)).size).toBe(events.length);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('refuses any mutation of the signed body bytes', async () => {
    const recorder = recording(adapter, null);
    const delivery = genuine();
    const reads = upstream.statusReads;
    await fc.assert(
      fc.asyncProperty(byteMutation, async (mutation) => {
        await expectRefused(recorder, { ...delivery, body: mutate(delivery.body, mutation) }, [
          'invalid_signature',
          'malformed_payload',
        ]);
      }),
      { numRuns: RUNS },
    );
    expect(upstream.statusReads, 'a forged body reached the status endpoint').toBe(reads);
  });

  it('refuses any change to the signature bytes and any other Signature header value', async () => {
    const recorder = recording(adapter, null);
    const delivery = genuine();
    const header = delivery.headersAsObject.signature ?? '';
    const [, t, s] = /^t=(\d+), s=(.+)$/.exec(header) ?? [];
    const signatureBytes = Buffer.from(s ?? '', 'base64');
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.integer({ min: 0, max: 7 }), async (at, bit) => {
        const forged = Buffer.from(signatureBytes);
        const index = at % forged.length;
        forged[index] = (forged[index] ?? 0) ^ (1 << bit);
        await expectRefused(
          recorder,
          { ...delivery, headersAsObject: { signature: `t=${t}, s=${forged.toString('base64')}` } },
          ['invalid_signature'],
        );
      }),
      { numRuns: RUNS },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ maxLength: 400 }),
          fc.base64String({ maxLength: 400 }).map((value) => `t=${t}, s=${value}`),
          fc.string({ maxLength: 20 }).map((value) => `t=${value}, s=${s}`),
          fc.constant(`s=${s}`),
          fc.constant(`t=${t}`),
          fc.constant(`t=${t}, s=`),
          fc.constant(`t=${t}, s=${signatureBytes.subarray(1).toString('base64')}`),
        ),
        async (value) => {
          await expectRefused(recorder, { ...delivery, headersAsObject: { signature: value } }, [
            'invalid_signature',
            'missing_signature',
            'stale_timestamp',
          ]);
        },
      ),
      { numRuns: RUNS },
    );
    await expectRefused(recorder, { ...delivery, headersAsObject: {} }, ['missing_signature']);
    await expectRefused(recorder, { ...delivery, headersAsObject: { 'x-signature': header } }, [
      'missing_signature',
    ]);
  });

  it('refuses any other timestamp with the same signature, and any stale or future timestamp even when signed', async () => {
    const recorder = recording(adapter, null);
    const now = nowSeconds();
    const delivery = signedProviderT({ transactionId: 'tx-1', eventId: 'evt-t', timestamp: now });
    const s = /s=(.+)$/.exec(delivery.headersAsObject.signature ?? '')?.[1];
    await fc.assert(
      fc.asyncProperty(
        fc
          .integer({ min: -100_000_000, max: 100_000_000 })
          .filter((delta) => delta !== 0 && now + delta >= 0),
        async (delta) => {
          await expectRefused(
            recorder,
            { ...delivery, headersAsObject: { signature: `t=${now + delta}, s=${s}` } },
            ['invalid_signature', 'stale_timestamp'],
          );
        },
      ),
      { numRuns: RUNS },
    );
    await fc.assert(
      fc.asyncProperty(
        // The clock is read when each value is generated, not once before the run: on a loaded machine the run
        // takes long enough for a timestamp fixed in advance to drift back inside the 5-minute window.
        fc.oneof(
          fc.integer({ min: 65 * 60 + 30, max: 20 * 365 * 86_400 }).map((age) => nowSeconds() - age),
          fc.integer({ min: 5 * 60 + 30, max: 20 * 365 * 86_400 }).map((ahead) => nowSeconds() + ahead),
        ),
        async (timestamp) => {
          const signed = signedProviderT({ transactionId: 'tx-1', eventId: `evt-${timestamp}`, timestamp });
          await expectRefused(recorder, signed, ['stale_timestamp']);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('refuses a delivery presented at any other host than the one signed', async () => {
    const recorder = recording(adapter, null);
    const delivery = signedProviderT({
      transactionId: 'tx-1',
      eventId: 'evt-h',
      url: 'https://shop.example/hooks/t',
    });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.domain(),
          fc.integer({ min: 1, max: 65_535 }).map((port) => `shop.example:${port}`),
          fc.constantFrom(
            'shop.example.',
            'Shop.example.evil',
            'evil.shop.example',
            '127.0.0.1',
            'shop.exampl',
          ),
        ),
        async (host) => {
          fc.pre(new URL(`https://${host}/`).host !== 'shop.example');
          await expectRefused(recorder, { ...delivery, fullUrl: `https://${host}/hooks/t` }, [
            'invalid_signature',
          ]);
        },
      ),
      { numRuns: RUNS },
    );
    // Behind a proxy: webhookHost names the host the provider addressed, and only that host verifies.
    const proxied = recording(providerTAdapter(upstream.fetch, { webhookHost: 'shop.example' }), null);
    await expectAccepted(proxied, { ...delivery, fullUrl: 'http://10.0.0.7:8080/hooks/t' });
    const internal = signedProviderT({
      transactionId: 'tx-1',
      eventId: 'evt-i',
      url: 'http://10.0.0.7:8080/hooks/t',
    });
    await expectRefused(proxied, internal, ['invalid_signature']);
  });

  it('refuses a delivery signed with any other key', async () => {
    const recorder = recording(adapter, null);
    await fc.assert(
      fc.asyncProperty(fc.uuid(), async (eventId) => {
        const body = JSON.stringify({
          eventId,
          subscriptionType: 'TRANSACTION_STATUS_EVENT',
          eventPayload: { transactionId: 'tx-1', transactionStatus: 'SENT' },
        });
        const signature = signProviderTWebhook({ body, host: 'shop.example', privateKey: otherKey });
        await expectRefused(
          recorder,
          { body, headersAsObject: { signature }, fullUrl: 'https://shop.example/h' },
          ['invalid_signature'],
        );
      }),
      { numRuns: 30 },
    );
    // The adapter's default (the provider's fixed sandbox key) refuses what the test key signed.
    const fixedKey = recording(
      (await import('@pay/provider-t')).createProviderT({
        clientId: 'c',
        clientSecret: 'secret-value',
        agentPartnerId: '1',
        operatorId: 'o',
        isSandbox: true,
        fetch: upstream.fetch,
      }),
      null,
    );
    await expectRefused(fixedKey, genuine(), ['invalid_signature']);
  });

  it('refuses unsigned junk of any shape with WebhookVerificationError, without hanging', async () => {
    const recorder = recording(adapter, null);
    await fc.assert(
      fc.asyncProperty(junkBody, junkHeaders, junkUrl, async (body, headersAsObject, fullUrl) => {
        await expectRefused(recorder, { body, headersAsObject, fullUrl });
      }),
      { numRuns: RUNS },
    );
  });

  it('signed junk with wrong types ends in a PayError or well-formed records, never a TypeError', async () => {
    const recorder = recording(adapter, null);
    const payload = fc.oneof(
      fc.record({
        eventId: fc.oneof(fc.uuid(), wrongType),
        eventDate: fc.oneof(fc.constant('2026-11-22T10:15:30.123'), wrongType),
        subscriptionType: fc.oneof(fc.constant('TRANSACTION_STATUS_EVENT'), wrongType),
        eventPayload: fc.oneof(
          wrongType,
          fc.record({
            transactionId: fc.oneof(fc.constant('tx-1'), fc.constant('unknown-1'), wrongType),
            transactionStatus: fc.oneof(fc.constantFrom(...statuses, 'IN_TRANSIT'), wrongType),
          }),
        ),
      }),
      fc.jsonValue({ maxDepth: 5 }),
    );
    await fc.assert(
      fc.asyncProperty(payload, async (value) => {
        const outcome = await settle(
          recorder.handler.handle(signedProviderTBody(JSON.stringify(value) ?? 'null')),
        );
        expectPayErrorOrWellFormed(outcome);
      }),
      { numRuns: RUNS * 2 },
    );
  });

  it('signed non-UTF-8, deep JSON and ~1 MB bodies end in a PayError or well-formed records', async () => {
    const recorder = recording(adapter, null);
    const body = genuine().body;
    await fc.assert(
      fc.asyncProperty(fc.nat(), invalidUtf8, async (at, sequence) => {
        const bytes = withInvalidUtf8(body, at, sequence);
        // Sign the exact bytes (the helper signs text), so only the UTF-8 check can refuse it.
        const t = nowSeconds();
        const signed = sign(
          'sha256',
          Buffer.concat([Buffer.from(`${t}.shop.example.`), bytes]),
          providerTKeys().privateKey,
        );
        const signature = `t=${t}, s=${signed.toString('base64')}`;
        await expectRefused(
          recorder,
          { body: bytes, headersAsObject: { signature }, fullUrl: 'https://shop.example/' },
          ['malformed_payload'],
        );
      }),
      { numRuns: 30 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1_000, max: 300_000 }),
        fc.constantFrom('array' as const, 'object' as const),
        fc.boolean(),
        async (depth, kind, inPayload) => {
          const deep = deepJson(depth, kind);
          const text = inPayload
            ? `{"eventId":"e-deep","subscriptionType":"TRANSACTION_STATUS_EVENT","eventPayload":{"transactionId":"tx-1","transactionStatus":"SENT","extra":${deep}}}`
            : deep;
          expectPayErrorOrWellFormed(await settle(recorder.handler.handle(signedProviderTBody(text))));
        },
      ),
      { numRuns: HEAVY_RUNS * 2 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 256 * 1024, max: 1024 * 1024 }),
        fc.boolean(),
        async (size, asEvent) => {
          const text = asEvent
            ? JSON.stringify({
                eventId: 'e-huge',
                subscriptionType: 'TRANSACTION_STATUS_EVENT',
                eventPayload: { transactionId: 'tx-1', transactionStatus: 'SENT', note: 'x'.repeat(size) },
              })
            : 'x'.repeat(size);
          expectPayErrorOrWellFormed(await settle(recorder.handler.handle(signedProviderTBody(text))));
        },
      ),
      { numRuns: HEAVY_RUNS },
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Provider R: no signature; `secret` and `merchant` in the push, then a server-side status confirmation

describe('Provider R webhook forgery', () => {
  let simulator: ProviderRSimulator;
  let adapter: ProviderRAdapter;
  const ids = { paid: '', pending: '', authorized: '' };
  type Which = keyof typeof ids;
  const expectedTypes: Record<Which, string[]> = {
    paid: [...PROVIDER_R_STATUS_EVENTS.PAID, 'providerR.PAID'],
    pending: [...PROVIDER_R_STATUS_EVENTS.PENDING, 'providerR.PENDING'],
    authorized: [...PROVIDER_R_STATUS_EVENTS.AUTHORIZED, 'providerR.AUTHORIZED'],
  };

  beforeAll(async () => {
    simulator = await startProviderRSimulator();
    adapter = providerRAdapterFor(simulator);
    ids.paid = await providerRTransaction(simulator, adapter, { paid: true, amount: 100 });
    ids.pending = await providerRTransaction(simulator, adapter, { paid: false, amount: 200 });
    ids.authorized = await providerRTransaction(simulator, adapter, { paid: false, amount: 300 });
    simulator.authorize(ids.authorized);
  });
  afterAll(async () => {
    await simulator?.close();
  });

  const push = (which: Which, format: 'form' | 'json' = 'form') =>
    providerRPushFor(simulator, ids[which], format);
  const request = (body: string | Uint8Array, headers: Record<string, string>): WebhookRequest => ({
    body,
    headersAsObject: headers,
    fullUrl: 'https://shop.example/webhooks/provider-r',
  });
  /** Events without the confirmation time, to compare two deliveries' outcome. */
  // Each accepted push is confirmed by its own status call, so `request_id` (that call's id) differs from the
  // baseline's: it must be a non-empty string, everything else must match.
  const comparable = (events: PayEvent[]) =>
    events.map(({ created: _created, data, ...rest }) => {
      const { paid_at: _paidAt, request_id: requestId, ...fields } = data as Record<string, unknown>;
      return {
        ...rest,
        data: {
          ...fields,
          request_id: typeof requestId === 'string' && requestId !== '' ? 'a status call id' : requestId,
        },
      };
    });
  const statusCalls = () => simulator.requests.filter((entry) => entry.path === '/v1.0/status').length;
  const contentType = fc.tuple(
    fc.mixedCase(fc.constant('application/json')),
    fc.constantFrom('', '; charset=utf-8', ';charset=UTF-8'),
  );

  it('accepts every genuine push, form or JSON in any content-type case, with the confirmed events', async () => {
    const recorder = recording(adapter, simulator.credentials.secret);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<Which>('paid', 'pending', 'authorized'),
        fc.boolean(),
        contentType,
        async (which, json, [type, parameters]) => {
          const built = push(which, json ? 'json' : 'form');
          const headers = json ? { 'Content-Type': `${type}${parameters}` } : built.headers;
          const events = await expectAccepted(recorder, request(built.body, headers));
          expect(events.map((event) => event.type)).toEqual(expectedTypes[which]);
          for (const event of events)
            expect(
              (event.data as { id?: string; transId?: string }).id ??
                (event.data as { transId?: string }).transId,
            ).toBe(ids[which]);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('refuses any change to the secret or merchant field, before any status call', async () => {
    const recorder = recording(adapter, simulator.credentials.secret);
    const { secret, merchant } = simulator.credentials;
    const otherThan = (value: string) =>
      fc
        .oneof(
          fc.string({ maxLength: 40 }),
          fc.nat().map((at) => value.slice(0, at % value.length)),
          fc.string({ minLength: 1, maxLength: 4 }).map((extra) => value + extra),
          fc.string({ minLength: 1, maxLength: 4 }).map((extra) => extra + value),
          fc.tuple(fc.nat(), fc.integer({ min: 1, max: 25 })).map(([at, shift]) => {
            const index = at % value.length;
            const code = value.charCodeAt(index);
            return (
              value.slice(0, index) +
              String.fromCharCode(((code - 32 + shift) % 95) + 32) +
              value.slice(index + 1)
            );
          }),
          fc.constant(value.toUpperCase()),
          fc.constant(` ${value}`),
        )
        .filter((candidate) => candidate !== value);
    const before = statusCalls();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('secret' as const, 'merchant' as const),
        fc.boolean(),
        fc.constantFrom<Which>('paid', 'pending'),
        fc.oneof(otherThan(secret), otherThan(merchant)),
        async (field, json, which, value) => {
          fc.pre(value !== (field === 'secret' ? secret : merchant));
          const genuine = push(which, json ? 'json' : 'form');
          const fields = json
            ? JSON.parse(genuine.body)
            : Object.fromEntries(new URLSearchParams(genuine.body));
          fields[field] = value;
          const body = json ? JSON.stringify(fields) : new URLSearchParams(fields).toString();
          await expectRefused(recorder, request(body, genuine.headers), [
            field === 'secret' ? 'invalid_secret' : 'merchant_mismatch',
          ]);
        },
      ),
      { numRuns: RUNS },
    );
    // Absent fields and JSON values of other types.
    for (const field of ['secret', 'merchant'] as const) {
      for (const value of [undefined, null, 0, true, [secret], { secret }]) {
        const fields = JSON.parse(push('paid', 'json').body);
        if (value === undefined) delete fields[field];
        else fields[field] = value;
        await expectRefused(
          recorder,
          request(JSON.stringify(fields), { 'content-type': 'application/json' }),
          [field === 'secret' ? 'invalid_secret' : 'merchant_mismatch'],
        );
      }
    }
    expect(statusCalls(), 'a forged push reached the status call').toBe(before);
    // A receiver configured with another secret refuses the genuine push.
    const other = recording(adapter, `${secret}x`);
    await expectRefused(other, request(push('paid').body, push('paid').headers), ['invalid_secret']);
  });

  it('any mutation of the push bytes is refused, or reports only what the provider confirms', async () => {
    const recorder = recording(adapter, simulator.credentials.secret);
    const baseline = {
      form: comparable(await expectAccepted(recorder, request(push('paid').body, push('paid').headers))),
      json: comparable(
        await expectAccepted(recorder, request(push('paid', 'json').body, push('paid', 'json').headers)),
      ),
    };
    await fc.assert(
      fc.asyncProperty(byteMutation, fc.boolean(), async (mutation, json) => {
        const genuine = push('paid', json ? 'json' : 'form');
        const before = recorder.seen.length;
        const outcome = await settle(
          recorder.handler.handle(request(mutate(genuine.body, mutation), genuine.headers)),
        );
        if (outcome.ok) {
          // No signature covers the other fields: they are ignored, the events carry the confirmed truth.
          expect(comparable(outcome.value.events)).toEqual(json ? baseline.json : baseline.form);
        } else {
          expect(WebhookVerificationError.isInstance(outcome.error), describeError(outcome.error)).toBe(true);
          expect(recorder.seen.length).toBe(before);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('forged status, price or transaction: refused, or the events report the confirmed truth', async () => {
    const recorder = recording(adapter, simulator.credentials.secret);
    const form = (which: Which, changes: Record<string, string>) => {
      const fields = Object.fromEntries(new URLSearchParams(push(which).body));
      return request(new URLSearchParams({ ...fields, ...changes }).toString(), push(which).headers);
    };
    // A final status the provider does not confirm: refused as retryable (503), nothing dispatched.
    for (const status of ['PAID', 'AUTHORIZED', 'CANCELLED']) {
      const error = await expectRefused(recorder, form('pending', { status }), ['unconfirmed_status']);
      expect(error.retryable).toBe(true);
    }
    // Announced CANCELLED, the provider says PAID: the events say PAID.
    const events = await expectAccepted(
      recorder,
      form('paid', { status: 'CANCELLED', price: '1', curr: 'EUR' }),
    );
    expect(events.map((event) => event.type)).toEqual(expectedTypes.paid);
    expect(events[0]?.data).toMatchObject({
      id: ids.paid,
      amount: 100,
      currency: 'CZK',
      status: 'succeeded',
    });
    // A transaction the provider does not know: refused, not retryable.
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 30 }).filter((id) => !Object.values(ids).includes(id)),
        async (transId) => {
          await expectRefused(recorder, form('paid', { transId }), [
            'confirmation_failed',
            'malformed_payload',
          ]);
        },
      ),
      { numRuns: 40 },
    );
    // Form body announced as JSON, and JSON body announced as form.
    await expectRefused(recorder, request(push('paid').body, { 'content-type': 'application/json' }), [
      'malformed_payload',
    ]);
    await expectRefused(
      recorder,
      request(push('paid', 'json').body, { 'content-type': 'application/x-www-form-urlencoded' }),
      ['invalid_secret'],
    );
  });

  it('any content-type value: refused, or the confirmed events', async () => {
    const recorder = recording(adapter, simulator.credentials.secret);
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        fc.oneof(
          fc.string({ maxLength: 40 }),
          contentType.map(([a, b]) => a + b),
        ),
        async (json, value) => {
          const genuine = push('paid', json ? 'json' : 'form');
          const outcome = await settle(
            recorder.handler.handle(request(genuine.body, { 'content-type': value })),
          );
          if (outcome.ok) expect(outcome.value.events.map((event) => event.type)).toEqual(expectedTypes.paid);
          else
            expect(WebhookVerificationError.isInstance(outcome.error), describeError(outcome.error)).toBe(
              true,
            );
        },
      ),
      { numRuns: 60 },
    );
  });

  it('junk of any shape (with or without the right secret) ends in a PayError, never a hang', async () => {
    const recorder = recording(adapter, simulator.credentials.secret);
    await fc.assert(
      fc.asyncProperty(junkBody, junkHeaders, junkUrl, async (body, headersAsObject, fullUrl) => {
        await expectRefused(recorder, { body, headersAsObject, fullUrl });
      }),
      { numRuns: RUNS },
    );
    const { secret, merchant } = simulator.credentials;
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(
          fc.constantFrom('transId', 'status', 'price', 'curr', 'test', 'label', 'payerId', 'email'),
          wrongType,
          {
            maxKeys: 6,
          },
        ),
        fc.boolean(),
        async (junk, keepGenuine) => {
          const fields = {
            ...(keepGenuine ? JSON.parse(push('paid', 'json').body) : {}),
            ...junk,
            secret,
            merchant,
          };
          const outcome = await settle(
            recorder.handler.handle(request(JSON.stringify(fields), { 'content-type': 'application/json' })),
          );
          expectPayErrorOrWellFormed(outcome);
        },
      ),
      { numRuns: RUNS },
    );
    await fc.assert(
      fc.asyncProperty(fc.nat(), invalidUtf8, async (at, sequence) => {
        await expectRefused(
          recorder,
          request(withInvalidUtf8(push('paid').body, at, sequence), push('paid').headers),
          ['malformed_payload'],
        );
      }),
      { numRuns: 40 },
    );
    for (const depth of [10_000, 300_000]) {
      const deep = `{"secret":"${secret}","merchant":"${merchant}","transId":${deepJson(depth, 'array')},"status":"PAID"}`;
      expectPayErrorOrWellFormed(
        await settle(recorder.handler.handle(request(deep, { 'content-type': 'application/json' }))),
      );
    }
    const huge = `${push('paid').body}&label=${'x'.repeat(1024 * 1024)}`;
    expectPayErrorOrWellFormed(await settle(recorder.handler.handle(request(huge, push('paid').headers))));
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Wrong request types (core's handle(), the same for every provider)

describe('handle() with requests of the wrong type', () => {
  const adapter = providerNAdapter();

  it('refuses a parsed body, a missing body and a non-string URL with WebhookVerificationError', async () => {
    const recorder = recording(adapter, N_WEBHOOK_SECRET);
    const signed = await signedProviderN(JSON.stringify(providerNTransactionPayload('PN|x|1')));
    // The headers a real request with this body carries: its length announces a body.
    const genuine = {
      ...signed,
      headersAsObject: {
        ...signed.headersAsObject,
        'content-length': String((signed.body as string).length),
      },
    };
    // A request that announced no body had nothing to parse: refused as the empty body, never as a parser's doing.
    for (const body of [{}, null, undefined]) {
      const refused = await expectRefused(recorder, { ...signed, body: body as never });
      expect([refused.reason, refused.status]).not.toEqual(['raw_body_required', 503]);
    }
    for (const body of [
      {},
      JSON.parse(genuine.body as string),
      null,
      undefined,
      42,
      ['a'],
      new ArrayBuffer(4),
    ]) {
      await expectRefused(recorder, { ...genuine, body: body as never }, ['raw_body_required']);
    }
    for (const fullUrl of [42, null, undefined, {}]) {
      const outcome = await settle(recorder.handler.handle({ ...genuine, fullUrl: fullUrl as never }));
      // Provider N does not sign the URL: a missing one is refused or ignored, never a TypeError.
      if (!outcome.ok) expect(PayError.isInstance(outcome.error), describeError(outcome.error)).toBe(true);
    }
    for (const headersAsObject of [null, undefined, 'providerN-signature', 42, [], new Headers()]) {
      await expectRefused(recorder, { ...genuine, headersAsObject: headersAsObject as never }, [
        'missing_signature',
        'malformed_payload',
      ]);
    }
  });

  // Found by this file and fixed in core (8515755): such requests used to reject with a plain TypeError.
  it('refuses header values of the wrong type and a non-object request with WebhookVerificationError', async () => {
    const recorder = recording(adapter, N_WEBHOOK_SECRET);
    const genuine = await signedProviderN(JSON.stringify(providerNTransactionPayload('PN|x|1')));
    for (const value of [42, null, { a: 1 }, [1, 2], true]) {
      await expectRefused(
        recorder,
        { ...genuine, headersAsObject: { ...genuine.headersAsObject, 'x-extra': value as never } },
        ['malformed_payload'],
      );
    }
    for (const request of [null, undefined, 'body', 42]) {
      await expectRefused(recorder, request as never, ['malformed_payload']);
    }
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Replays: with the deduplication store, every event is dispatched once however often it is delivered

/**
 * Handles a delivery as a provider delivers it: an answer "in progress" (503, another attempt holds the
 * delivery's lease) is followed by the same delivery again a moment later.
 */
async function handleUntilNotInProgress(
  handler: { handle(request: WebhookRequest): Promise<WebhookResult> },
  delivery: WebhookRequest,
): Promise<WebhookResult> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await handler.handle(delivery);
    } catch (error) {
      const inProgress =
        WebhookVerificationError.isInstance(error) &&
        error.reason === 'delivery_in_progress' &&
        error.status === 503;
      if (!inProgress || attempt > 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }
}

describe('replays with createMemoryDeduplicationStore', () => {
  let simulator: ProviderRSimulator;
  let rAdapter: ProviderRAdapter;
  const rIds: string[] = [];

  beforeAll(async () => {
    simulator = await startProviderRSimulator();
    rAdapter = providerRAdapterFor(simulator);
    rIds.push(await providerRTransaction(simulator, rAdapter, { paid: true }));
    rIds.push(await providerRTransaction(simulator, rAdapter, { paid: false }));
    rIds.push(await providerRTransaction(simulator, rAdapter, { paid: true, amount: 42 }));
  });
  afterAll(async () => {
    await simulator?.close();
  });

  async function pools(): Promise<
    Record<
      string,
      { adapter: Parameters<typeof recording>[0]; secret: string | null; deliveries: WebhookRequest[] }
    >
  > {
    const upstream = fakeProviderTUpstream();
    return {
      providerN: {
        adapter: providerNAdapter(),
        secret: N_WEBHOOK_SECRET,
        deliveries: await Promise.all(
          ['PN|r|1', 'PN|r|2', 'PN|r|3'].map(async (ref) =>
            signedProviderN(JSON.stringify(providerNTransactionPayload(ref))),
          ),
        ),
      },
      providerT: {
        adapter: providerTAdapter(upstream.fetch),
        secret: null,
        deliveries: ['a', 'b', 'c'].map((id) =>
          signedProviderT({ transactionId: `tx-${id}`, eventId: `evt-${id}` }),
        ),
      },
      providerR: {
        adapter: rAdapter,
        secret: simulator.credentials.secret,
        deliveries: rIds.map((id) => {
          const built = providerRPushFor(simulator, id);
          return { body: built.body, headersAsObject: built.headers, fullUrl: 'https://shop.example/r' };
        }),
      },
    };
  }

  it('dispatches each event exactly once over any sequence of (concurrent) redeliveries, for every provider', async () => {
    const all = await pools();
    for (const [provider, { adapter, secret, deliveries }] of Object.entries(all)) {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.array(fc.nat({ max: deliveries.length - 1 }), { minLength: 1, maxLength: 4 }), {
            minLength: 1,
            maxLength: 6,
          }),
          async (batches) => {
            const recorder = recording(adapter, secret, createMemoryDeduplicationStore());
            const dispatched = new Set<string>();
            let duplicates = 0;
            let total = 0;
            for (const batch of batches) {
              const results = await Promise.all(
                batch.map((index) => handleUntilNotInProgress(recorder.handler, deliveries[index]!)),
              );
              for (const result of results) {
                duplicates += result.duplicates.length;
                total += result.events.length;
                for (const event of result.events) dispatched.add(event.id);
              }
            }
            const counts = new Map<string, number>();
            for (const event of recorder.seen) counts.set(event.id, (counts.get(event.id) ?? 0) + 1);
            expect(
              [...counts.values()].every((count) => count === 1),
              `${provider}: an event ran twice`,
            ).toBe(true);
            expect(new Set(counts.keys()), provider).toEqual(dispatched);
            // A duplicate reads no events at all: everything returned was dispatched, once.
            expect(recorder.seen.length).toBe(total);
            expect(duplicates + new Set(batches.flat()).size).toBe(batches.flat().length);
          },
        ),
        { numRuns: 40 },
      );
    }
  });

  it('a failed dispatch releases its lease: the redelivery runs it, the next one is a duplicate', async () => {
    const store = createMemoryDeduplicationStore();
    let calls = 0;
    const handler = createPay(providerNAdapter())
      .webhooks.setup({ webhookSecret: N_WEBHOOK_SECRET, deduplicate: store })
      .on('payment.created', () => {
        calls += 1;
        if (calls === 1) throw new Error('database down');
      });
    const delivery = await signedProviderN(JSON.stringify(providerNTransactionPayload('PN|fail|1')));
    const first = await settle(handler.handle(delivery));
    expect(WebhookHandlerError.isInstance((first as { error: unknown }).error)).toBe(true);
    const redelivered = await handler.handle(delivery);
    expect(redelivered.duplicates).toEqual([]);
    expect(redelivered.events.map((event) => event.type)).toContain('payment.created');
    expect(calls).toBe(2);
    expect(await handler.handle(delivery)).toEqual({
      events: [],
      duplicates: [expect.stringContaining('PN|fail|1')],
    });
    expect(calls).toBe(2);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Forgeries posted by the providers' own simulators over loopback HTTP, through core's Node bridge

describe('forgeries posted by the simulators over HTTP (toNodeListener)', () => {
  const servers: LoopbackServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
  });

  /** An endpoint over `adapter`, counting every callback. */
  async function endpoint(adapter: Parameters<typeof recording>[0], secret: string | null) {
    const recorder = recording(adapter, secret, createMemoryDeduplicationStore());
    const server = await startLoopbackServer(toNodeListener(recorder.handler));
    servers.push(server);
    return { url: `${server.url}/webhooks`, seen: recorder.seen };
  }

  it('Provider T: genuine 200 once; wrong host, stale, future, other key and replayed tampering 400', async () => {
    const simulator = await startProviderTSimulator();
    try {
      const adapter = createProviderT(simulator.adapterConfig({ retry: 0 }));
      const payment = await adapter.createPayment(providerTTransferParams());
      const { url, seen } = await endpoint(adapter, null);
      const now = Math.floor(Date.now() / 1000);
      const deliver = (options: Partial<Parameters<typeof simulator.deliverWebhook>[1]>) =>
        simulator.deliverWebhook(url, { transactionId: payment.id, ...options });
      expect(await deliver({ eventId: 'evt-http-1' })).toBe(200);
      expect(await deliver({ eventId: 'evt-http-1' })).toBe(200);
      expect(seen.map((event) => event.type)).toEqual([
        'payment.succeeded',
        'providerT.TRANSACTION_STATUS_EVENT',
      ]);
      expect(await deliver({ eventId: 'evt-http-2', host: 'shop.example' })).toBe(400);
      expect(await deliver({ eventId: 'evt-http-3', timestamp: now - 66 * 60 })).toBe(400);
      expect(await deliver({ eventId: 'evt-http-4', timestamp: now + 6 * 60 })).toBe(400);
      expect(await deliver({ eventId: 'evt-http-5', privateKey: providerTKeys().privateKey })).toBe(400);
      // A transfer the provider does not know: verified, but not confirmable yet: 503 so it is delivered again.
      expect(
        await simulator.deliverWebhook(url, { transactionId: 'no-such-transfer', eventId: 'evt-http-6' }),
      ).toBe(503);
      expect(seen).toHaveLength(2);
    } finally {
      await simulator.close();
    }
  });

  it('Provider R: genuine 200 once; wrong secret or merchant 400; an unconfirmed final status 503', async () => {
    const simulator = await startProviderRSimulator();
    try {
      const adapter = providerRAdapterFor(simulator);
      const paid = await providerRTransaction(simulator, adapter, { paid: true });
      const pending = await providerRTransaction(simulator, adapter, { paid: false });
      const { url, seen } = await endpoint(adapter, simulator.credentials.secret);
      expect(await simulator.deliverWebhook(url, { transId: paid })).toBe(200);
      expect(await simulator.deliverWebhook(url, { transId: paid, format: 'json' })).toBe(200);
      expect(seen.map((event) => event.type)).toEqual([
        'payment.succeeded',
        'invoice.generated',
        'providerR.PAID',
      ]);
      expect(await simulator.deliverWebhook(url, { transId: paid, secret: 'guessed-secret' })).toBe(400);
      expect(await simulator.deliverWebhook(url, { transId: paid, merchant: '999999' })).toBe(400);
      expect(await simulator.deliverWebhook(url, { transId: pending, status: 'PAID' })).toBe(503);
      expect(seen).toHaveLength(3);
    } finally {
      await simulator.close();
    }
  });

  it('Provider N: genuine 200 once; any other signature 400', async () => {
    const simulator = await startProviderNSimulator();
    try {
      const adapter = createProviderN(simulator.adapterConfig());
      const { url, seen } = await endpoint(adapter, simulator.credentials.webhookSecret);
      const payload = providerNTransactionPayload('PN|http|1');
      expect(await simulator.deliverWebhook(url, payload)).toBe(200);
      expect(await simulator.deliverWebhook(url, payload)).toBe(200);
      expect(seen).toHaveLength(2);
      for (const signature of [
        '',
        'deadbeef',
        'a'.repeat(128),
        await signProviderNWebhook('{}', simulator.credentials.webhookSecret),
      ]) {
        expect(await simulator.deliverWebhook(url, payload, { signature })).toBe(400);
      }
      expect(seen).toHaveLength(2);
    } finally {
      await simulator.close();
    }
  });
});
