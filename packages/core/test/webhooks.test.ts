import dc from 'node:diagnostics_channel';
import { describe, expect, it, vi } from 'vitest';
import { PAY_CHANNELS } from '../src/diagnostics/channels.js';
import { ambientLogger, SILENT_LOGGER } from '../src/diagnostics/logger.js';
import {
  ConfigurationError,
  createMemoryDeduplicationStore,
  createPay,
  type DeduplicationStore,
  type PayEvent,
  WebhookHandlerError,
  WebhookVerificationError,
} from '../src/index.js';
import { createTestAdapter, signedDelivery, type TestAdapterOptions, WEBHOOK_SECRET } from './fixtures.js';

function handler(
  options: Partial<Parameters<ReturnType<typeof createPay>['webhooks']['setup']>[0]> = {},
  adapterOptions: TestAdapterOptions = {},
) {
  return createPay(createTestAdapter(adapterOptions).adapter).webhooks.setup({
    webhookSecret: WEBHOOK_SECRET,
    ...options,
  });
}

describe('the webhook handler', () => {
  it('dispatches events in the order the adapter produced them, callbacks in registration order', async () => {
    const seen: string[] = [];
    const result = await handler()
      .on('payment.updated', (event) => void seen.push(`first ${event.id}`))
      .on(
        'providerN.SUCCESSFUL_TRANSACTION',
        (event) => void seen.push(`raw ${event.data.transactionReference}`),
      )
      .on('payment.updated', (event) => void seen.push(`second ${event.id}`))
      .handle(await signedDelivery('{"ref":"R1","items":2}'));
    expect(seen).toEqual([
      'first R1:0:payment.updated',
      'second R1:0:payment.updated',
      'first R1:1:payment.updated',
      'second R1:1:payment.updated',
      'raw R1',
    ]);
    expect(result.events.map((event) => [event.type, event.is_raw])).toEqual([
      ['payment.updated', false],
      ['payment.updated', false],
      ['providerN.SUCCESSFUL_TRANSACTION', true],
    ]);
  });

  it('gives callbacks the envelope { id, type, created, provider, data, is_raw }', async () => {
    const events: PayEvent[] = [];
    await handler()
      .on(['payment.updated'], (event) => void events.push(event))
      .handle(await signedDelivery('{"ref":"R2","items":1}'));
    expect(events[0]).toEqual({
      id: 'R2:0:payment.updated',
      type: 'payment.updated',
      created: 1_700_000_000_000,
      provider: 'providerN',
      data: expect.objectContaining({ id: 'R2-0', status: 'succeeded' }),
      is_raw: false,
    });
  });

  it('matches signature headers whatever their case', async () => {
    const signed = await signedDelivery('{"ref":"R3","items":1}');
    const delivery = { ...signed, headersAsObject: { 'X-SIGNATURE': signed.headersAsObject['x-signature'] } };
    await expect(handler().handle(delivery)).resolves.toMatchObject({ events: expect.any(Array) });
  });

  it('accepts the raw body as bytes', async () => {
    const delivery = await signedDelivery('{"ref":"R4","items":1}');
    const result = await handler().handle({ ...delivery, body: new TextEncoder().encode(delivery.body) });
    expect(result.events).toHaveLength(2);
  });

  it('runs every callback even when one throws, then rejects with all errors', async () => {
    const ran: string[] = [];
    const boom = new Error('boom');
    const error = await handler()
      .on('payment.updated', () => {
        throw boom;
      })
      .on('payment.updated', () => void ran.push('second'))
      .on('providerN.SUCCESSFUL_TRANSACTION', async () => {
        ran.push('raw');
        throw new Error('raw failed');
      })
      .handle(await signedDelivery('{"ref":"R5","items":1}'))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WebhookHandlerError);
    expect((error as WebhookHandlerError).errors).toEqual([boom, new Error('raw failed')]);
    expect((error as WebhookHandlerError).events).toHaveLength(2);
    expect((error as WebhookHandlerError).status).toBe(500);
    expect(ran).toEqual(['second', 'raw']);
  });

  it('runs no callback when verification fails', async () => {
    const callback = vi.fn();
    const delivery = await signedDelivery('{"ref":"R6","items":1}');
    const error = await handler()
      .on('payment.updated', callback)
      .handle({ ...delivery, body: '{"ref":"R6","items":9}' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect(error).toMatchObject({ reason: 'invalid_signature', status: 400, retryable: false });
    expect(callback).not.toHaveBeenCalled();
  });

  it('refuses a parsed body retryably (503), saying it was already parsed and how to keep the raw body', async () => {
    const callback = vi.fn();
    const delivery = await signedDelivery('{"ref":"P2","items":1}');
    const error = (await handler()
      .on('payment.updated', callback)
      .handle({ ...delivery, body: JSON.parse(delivery.body) })
      .catch((e: unknown) => e)) as WebhookVerificationError;
    expect(error).toBeInstanceOf(WebhookVerificationError);
    // A configuration error, not a forgery: the provider must deliver it again once the route is fixed.
    expect(error).toMatchObject({ reason: 'raw_body_required', retryable: true, status: 503 });
    expect(error.message).toContain('already parsed');
    expect(error.message).toContain('before any global body parser');
    expect(error.message).toContain('express.raw({ type: () => true, limit: 1024 * 1024 })');
    expect(error.message).toContain('request.text()');
    expect(callback).not.toHaveBeenCalled();
  });

  it('refuses a missing body retryably when the request announced one, showing how to keep the raw body', async () => {
    // What a route without a raw body parser passes on: undefined (Express 5) or {} (Express 4).
    for (const body of [undefined, {}]) {
      // HTTP/2 (pseudo-headers) needs no Content-Length for a body: its absence there proves nothing.
      for (const announced of [
        { 'content-length': '512' },
        { 'Transfer-Encoding': 'chunked' },
        { ':method': 'POST', ':path': '/' },
      ]) {
        const error = (await handler()
          .handle({ body: body as never, headersAsObject: announced, fullUrl: 'https://shop.example/' })
          .catch((e: unknown) => e)) as WebhookVerificationError;
        expect(error).toMatchObject({ reason: 'raw_body_required', retryable: true, status: 503 });
        expect(error.message).toMatch(
          /^The webhook body is (undefined|an empty object), though the request announced one\./,
        );
        expect(error.message).toContain('express.raw');
      }
    }
  });

  it('checks a request that announced no body as the empty body it is: 400, never "a body parser ran first"', async () => {
    // An empty POST without Content-Type: express.raw leaves req.body undefined (Express 5) or {} (Express 4).
    for (const body of [undefined, {}, null]) {
      for (const headersAsObject of [{}, { 'content-length': '0' }, { 'x-signature': 'ab' }]) {
        const error = (await handler()
          .handle({ body: body as never, headersAsObject, fullUrl: 'https://shop.example/' })
          .catch((e: unknown) => e)) as WebhookVerificationError;
        expect(error).toBeInstanceOf(WebhookVerificationError);
        expect(error.status).toBe(400);
        expect(error.retryable).toBe(false);
        expect(error.reason).not.toBe('raw_body_required');
        // The same refusal as the empty body itself gets.
        const direct = await handler()
          .handle({ body: '', headersAsObject, fullUrl: 'https://shop.example/' })
          .catch((e: unknown) => e);
        expect(error).toMatchObject({
          reason: (direct as WebhookVerificationError).reason,
          message: (direct as Error).message,
        });
      }
    }
  });

  it('refuses header values that cannot come from HTTP, and a request that is not an object, as malformed', async () => {
    const delivery = await signedDelivery('{"ref":"H1","items":1}');
    for (const value of [42, null, { a: 1 }, [1, 2]]) {
      await expect(
        handler().handle({
          ...delivery,
          headersAsObject: { ...delivery.headersAsObject, 'x-extra': value as never },
        }),
      ).rejects.toMatchObject({ code: 'webhook_verification_failed', reason: 'malformed_payload' });
    }
    for (const request of [null, undefined, 'body']) {
      await expect(handler().handle(request as never)).rejects.toMatchObject({ reason: 'malformed_payload' });
    }
  });

  it('answers an exception that is not a PayError escaping verification retryably (503), not as a permanent 400', async () => {
    const delivery = await signedDelivery('{"ref":"BUG","items":1}');
    const error = await handler(
      {},
      {
        afterSignature: (body) => JSON.parse(body.slice(1)),
      },
    )
      .handle(delivery)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect(error).toMatchObject({
      code: 'webhook_verification_failed',
      reason: 'internal_error',
      retryable: true,
      status: 503,
    });
    expect((error as Error).cause).toBeInstanceOf(SyntaxError);
  });

  it('answers retryably (503) when an adapter’s verify resolves to an events array, the former contract', async () => {
    const { adapter } = createTestAdapter();
    const former = {
      ...adapter,
      webhooks: { ...adapter.webhooks, verify: async () => [] as never },
    };
    const callback = vi.fn();
    const error = await createPay(former)
      .webhooks.setup({ webhookSecret: WEBHOOK_SECRET })
      .on('payment.updated', callback)
      .handle(await signedDelivery('{"ref":"OLD","items":1}'))
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: 'internal_error', retryable: true, status: 503 });
    expect(((error as Error).cause as Error).message).toContain('{ key, events() }');
    expect(callback).not.toHaveBeenCalled();
  });

  it('refuses to register an event name the adapter never raises', () => {
    expect(() => handler().on('providerR.PAID' as never, () => {})).toThrow(ConfigurationError);
    expect(() => handler().on('payment.succeeded', () => {})).not.toThrow();
  });

  it('refuses at registration a normalised event the adapter says it never raises (its eventNames)', () => {
    const { adapter } = createTestAdapter();
    const narrowed = {
      ...adapter,
      webhooks: { ...adapter.webhooks, eventNames: ['payment.updated'] as const },
    };
    const handler = createPay(narrowed).webhooks.setup({ webhookSecret: WEBHOOK_SECRET });
    expect(() => handler.on('payment.succeeded', () => {})).toThrow(
      "'payment.succeeded' is not an event providerN raises. Known names: payment.updated, providerN.SUCCESSFUL_TRANSACTION.",
    );
    expect(() => handler.on(['payment.updated', 'providerN.SUCCESSFUL_TRANSACTION'], () => {})).not.toThrow();
  });

  it('is fine with a verified event that has no callback', async () => {
    const result = await handler().handle(await signedDelivery('{"ref":"R7","items":1}'));
    expect(result.events).toHaveLength(2);
    expect(result.duplicates).toEqual([]);
  });
});

describe('deduplication with a lease (docs/architecture.md#webhook-deduplication)', () => {
  function deduplicated(
    options: TestAdapterOptions = {},
    setup: Partial<Parameters<ReturnType<typeof createPay>['webhooks']['setup']>[0]> = {},
  ) {
    const { adapter, counters } = createTestAdapter(options);
    const store = createMemoryDeduplicationStore();
    const handler = createPay(adapter).webhooks.setup({
      webhookSecret: WEBHOOK_SECRET,
      deduplicate: store,
      ...setup,
    });
    return { handler, counters, store };
  }

  it('dispatches a redelivered delivery once and lists its delivery key as the duplicate', async () => {
    const callback = vi.fn();
    const { handler: h } = deduplicated();
    h.on('payment.updated', callback);
    const delivery = await signedDelivery('{"ref":"D1","items":2}');
    const first = await h.handle(delivery);
    const again = await h.handle(delivery);
    expect(callback).toHaveBeenCalledTimes(2);
    expect(first).toMatchObject({ duplicates: [] });
    expect(first.events).toHaveLength(3);
    expect(again).toEqual({ events: [], duplicates: ['D1'] });
  });

  it('deduplicates before any upstream read: 200 replays of one delivery make one status read', async () => {
    const { handler: h, counters } = deduplicated();
    const delivery = await signedDelivery('{"ref":"D-REPLAY","items":1}');
    for (let attempt = 0; attempt < 200; attempt += 1) await h.handle(delivery);
    expect(counters.upstreamReads).toBe(1);
  });

  it('answers a redelivery that arrives while the first attempt still runs retryably (503), and runs it once that attempt failed', async () => {
    let finishFirst: () => void = () => {};
    let reads = 0;
    const { handler: h } = deduplicated({
      upstreamRead: () => {
        reads += 1;
        return reads === 1 ? new Promise<void>((resolve) => (finishFirst = resolve)) : Promise.resolve();
      },
    });
    let failures = 1;
    const callback = vi.fn(() => {
      if (failures-- > 0) throw new Error('database down');
    });
    h.on('payment.updated', callback);
    const delivery = await signedDelivery('{"ref":"D-CONCURRENT","items":1}');
    const first = h.handle(delivery).catch((e: unknown) => e);
    await vi.waitFor(() => expect(reads).toBe(1));
    const concurrent = await h.handle(delivery).catch((e: unknown) => e);
    expect(concurrent).toBeInstanceOf(WebhookVerificationError);
    expect(concurrent).toMatchObject({ reason: 'delivery_in_progress', retryable: true, status: 503 });
    finishFirst();
    expect(await first).toBeInstanceOf(WebhookHandlerError);
    const redelivered = await h.handle(delivery);
    expect(redelivered.duplicates).toEqual([]);
    expect(callback).toHaveBeenCalledTimes(2);
    expect(await h.handle(delivery)).toEqual({ events: [], duplicates: ['D-CONCURRENT'] });
  });

  it('releases the lease of a delivery whose callback failed, so the redelivery runs it again', async () => {
    let failures = 1;
    const callback = vi.fn(() => {
      if (failures-- > 0) throw new Error('database down');
    });
    const { handler: h } = deduplicated();
    h.on('payment.updated', callback);
    const delivery = await signedDelivery('{"ref":"D2","items":1}');
    await expect(h.handle(delivery)).rejects.toBeInstanceOf(WebhookHandlerError);
    await h.handle(delivery);
    expect(callback).toHaveBeenCalledTimes(2);
  });

  it('releases the lease when the upstream confirmation fails, so the redelivery confirms again', async () => {
    let reads = 0;
    const { handler: h, counters } = deduplicated({
      upstreamRead: async () => {
        reads += 1;
        if (reads === 1)
          throw new WebhookVerificationError('not final yet', {
            reason: 'unconfirmed_status',
            retryable: true,
          });
      },
    });
    const delivery = await signedDelivery('{"ref":"D3","items":1}');
    await expect(h.handle(delivery)).rejects.toMatchObject({ reason: 'unconfirmed_status', status: 503 });
    expect((await h.handle(delivery)).events).toHaveLength(2);
    expect(counters.upstreamReads).toBe(2);
  });

  it('lets the next delivery run once the lease of a crashed attempt has expired', async () => {
    let now = 0;
    const store = createMemoryDeduplicationStore(() => now);
    const crashed = await store.begin('providerN:D4', { leaseSeconds: 60 });
    expect(crashed.state).toBe('acquired');
    expect(await store.begin('providerN:D4', { leaseSeconds: 60 })).toEqual({ state: 'in_progress' });
    now = 61_000;
    const callback = vi.fn();
    const { adapter } = createTestAdapter();
    const h = createPay(adapter)
      .webhooks.setup({ webhookSecret: WEBHOOK_SECRET, deduplicate: store })
      .on('payment.updated', callback);
    await h.handle(await signedDelivery('{"ref":"D4","items":1}'));
    expect(callback).toHaveBeenCalledTimes(1);
  });

  it('does not let an attempt whose lease expired and was taken over complete or release the new lease', async () => {
    let now = 0;
    const store = createMemoryDeduplicationStore(() => now);
    const stale = await store.begin('k', { leaseSeconds: 10 });
    now = 11_000;
    const current = await store.begin('k', { leaseSeconds: 10 });
    if (stale.state !== 'acquired' || current.state !== 'acquired') throw new Error('expected two leases');
    expect(current.lease).not.toBe(stale.lease);
    await store.complete('k', stale.lease, 3600);
    await store.release('k', stale.lease);
    expect(await store.begin('k', { leaseSeconds: 10 })).toEqual({ state: 'in_progress' });
    await store.complete('k', current.lease, 3600);
    expect(await store.begin('k', { leaseSeconds: 10 })).toEqual({ state: 'done' });
    now += 3_601_000;
    expect((await store.begin('k', { leaseSeconds: 10 })).state).toBe('acquired');
  });

  it('answers retryably (503) when the deduplication store cannot be reached, and runs no callback', async () => {
    const callback = vi.fn();
    const { adapter } = createTestAdapter();
    const failing: DeduplicationStore = {
      begin: async () => {
        throw new Error('ECONNREFUSED');
      },
      complete: async () => {},
      release: async () => {},
    };
    const h = createPay(adapter)
      .webhooks.setup({ webhookSecret: WEBHOOK_SECRET, deduplicate: failing })
      .on('payment.updated', callback);
    await expect(h.handle(await signedDelivery('{"ref":"D5","items":1}'))).rejects.toMatchObject({
      reason: 'deduplication_unavailable',
      retryable: true,
      status: 503,
    });
    expect(callback).not.toHaveBeenCalled();
  });

  it('reports the callbacks’ outcome, not the store’s, when the store fails to complete or release', async () => {
    const { adapter } = createTestAdapter();
    const brokenAfterBegin: DeduplicationStore = {
      begin: async () => ({ state: 'acquired', lease: 'l1' }),
      complete: () => {
        throw new Error('store down (sync)');
      },
      release: async () => {
        throw new Error('store down');
      },
    };
    const setup = () =>
      createPay(adapter).webhooks.setup({ webhookSecret: WEBHOOK_SECRET, deduplicate: brokenAfterBegin });
    const ok = await setup().handle(await signedDelivery('{"ref":"S1","items":1}'));
    expect(ok.events).toHaveLength(2);
    const failing = setup().on('payment.updated', () => {
      throw new Error('callback failed');
    });
    await expect(failing.handle(await signedDelivery('{"ref":"S2","items":1}'))).rejects.toBeInstanceOf(
      WebhookHandlerError,
    );
  });

  it('keeps one provider’s delivery keys apart from another’s in a shared store', async () => {
    const store = createMemoryDeduplicationStore();
    const { adapter } = createTestAdapter();
    await createPay(adapter)
      .webhooks.setup({ webhookSecret: WEBHOOK_SECRET, deduplicate: store })
      .handle(await signedDelivery('{"ref":"SHARED","items":1}'));
    expect(await store.begin('providerN:SHARED', { leaseSeconds: 1 })).toEqual({ state: 'done' });
    expect((await store.begin('providerR:SHARED', { leaseSeconds: 1 })).state).toBe('acquired');
  });

  it('refuses a time to live or lease of 0, below 0 or NaN, and a store of the former claim shape, at setup', () => {
    const { adapter } = createTestAdapter();
    const setup =
      (options: Partial<Parameters<ReturnType<typeof createPay>['webhooks']['setup']>[0]>) => () =>
        createPay(adapter).webhooks.setup({
          webhookSecret: WEBHOOK_SECRET,
          deduplicate: createMemoryDeduplicationStore(),
          ...options,
        });
    for (const value of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(setup({ deduplicateTtlSeconds: value })).toThrow(ConfigurationError);
      expect(setup({ deduplicateLeaseSeconds: value })).toThrow(ConfigurationError);
    }
    const formerStore = { claim: async () => true, release: async () => {} };
    expect(setup({ deduplicate: formerStore as never })).toThrow(/begin\(key/);
    expect(setup({ deduplicateTtlSeconds: 30 * 24 * 3600 })).not.toThrow();
  });
});

describe('a body with a UTF-8 byte order mark (docs/architecture.md#webhook-verification)', () => {
  it('is verified over its exact bytes and read alike whether passed as a string or as bytes', async () => {
    const text = '\uFEFF{"ref":"BOM","items":1}';
    const bytes = new TextEncoder().encode(text);
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const { adapter } = createTestAdapter();
    const h = createPay(adapter).webhooks.setup({ webhookSecret: WEBHOOK_SECRET });
    const asString = await h.handle(await signedDelivery(text));
    const asBytes = await h.handle(await signedDelivery(bytes));
    expect(asString.events.map((event) => event.id)).toEqual([
      'BOM:0:payment.updated',
      'BOM:providerN.SUCCESSFUL_TRANSACTION',
    ]);
    expect(asBytes.events).toEqual(asString.events);
  });

  it('still refuses it when the signature was computed without the byte order mark', async () => {
    const { adapter } = createTestAdapter();
    const h = createPay(adapter).webhooks.setup({ webhookSecret: WEBHOOK_SECRET });
    const signedWithout = await signedDelivery('{"ref":"BOM2","items":1}');
    for (const body of [
      '\uFEFF{"ref":"BOM2","items":1}',
      new TextEncoder().encode('\uFEFF{"ref":"BOM2","items":1}'),
    ]) {
      await expect(h.handle({ ...signedWithout, body })).rejects.toMatchObject({
        reason: 'invalid_signature',
      });
    }
  });
});

describe('parseWebhookPayload', () => {
  it('returns the parsed payload, or refuses a malformed one as malformed_payload naming the fields', async () => {
    const { parseWebhookPayload } = await import('../src/webhooks/types.js');
    const v = await import('../src/schema.js');
    const schema = v.object({
      eventType: v.string(),
      eventData: v.object({ transactionReference: v.string() }),
    });
    expect(
      parseWebhookPayload(schema, { eventType: 'X', eventData: { transactionReference: 'R' } }, 'providerN'),
    ).toEqual({
      eventType: 'X',
      eventData: { transactionReference: 'R' },
    });
    let error: unknown;
    try {
      parseWebhookPayload(
        schema,
        { eventType: 7, eventData: { transactionReference: 'secret-value', x: 1 } },
        'providerN',
      );
      parseWebhookPayload(schema, { eventType: 7, eventData: {} }, 'providerN');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect(error).toMatchObject({ reason: 'malformed_payload', status: 400 });
    expect((error as Error).message).toContain('eventType');
  });
});

describe('onAny and onError (as Octokit’s webhooks)', () => {
  it('runs onAny for every event of the delivery, after that event’s typed callbacks', async () => {
    const seen: string[] = [];
    await handler()
      .onAny((event) => void seen.push(`any ${event.type}`))
      .on('payment.updated', (event) => void seen.push(`typed ${event.id}`))
      .handle(await signedDelivery('{"ref":"A1","items":1}'));
    expect(seen).toEqual([
      'typed A1:0:payment.updated',
      'any payment.updated',
      'any providerN.SUCCESSFUL_TRANSACTION',
    ]);
  });

  it('counts an onAny callback that throws like any callback (WebhookHandlerError, other callbacks still run)', async () => {
    const typed = vi.fn();
    const error = await handler()
      .onAny(() => {
        throw new Error('audit log down');
      })
      .on('providerN.SUCCESSFUL_TRANSACTION', typed)
      .handle(await signedDelivery('{"ref":"A2","items":1}'))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WebhookHandlerError);
    expect((error as WebhookHandlerError).errors).toHaveLength(2);
    expect(typed).toHaveBeenCalledTimes(1);
  });

  it('calls onError with the verification error and the delivery context, and handle() still rejects with it', async () => {
    const reports: unknown[] = [];
    const delivery = await signedDelivery('{"ref":"A3","items":1}');
    const forged = { ...delivery, body: '{"ref":"A3","items":9}' };
    const error = await handler()
      .onError((failure, context) => void reports.push({ failure, context }))
      .handle(forged)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect(reports).toEqual([
      {
        failure: error,
        context: { provider: 'providerN', stage: 'verification', deliveryKey: null, events: [] },
      },
    ]);
  });

  it('calls onError with the callbacks’ WebhookHandlerError, the delivery key and its events', async () => {
    const onError = vi.fn();
    const error = await handler()
      .on('payment.updated', () => {
        throw new Error('fulfilment failed');
      })
      .onError(onError)
      .handle(await signedDelivery('{"ref":"A4","items":1}'))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WebhookHandlerError);
    expect(onError).toHaveBeenCalledTimes(1);
    expect(onError).toHaveBeenCalledWith(error, {
      provider: 'providerN',
      stage: 'dispatch',
      deliveryKey: 'A4',
      events: (error as WebhookHandlerError).events,
    });
    expect((error as WebhookHandlerError).events).toHaveLength(2);
  });

  it('never changes the answer: an onError that throws (or rejects) is ignored, and a success calls no onError', async () => {
    const onError = vi.fn(async () => {
      throw new Error('logger down');
    });
    const refused = handler()
      .onError(() => {
        throw new Error('sync logger down');
      })
      .onError(onError);
    const delivery = await signedDelivery('{"ref":"A5","items":1}');
    await expect(refused.handle({ ...delivery, body: 'tampered' })).rejects.toMatchObject({
      code: 'webhook_verification_failed',
      reason: 'invalid_signature',
    });
    expect(onError).toHaveBeenCalledTimes(1);
    await expect(refused.handle(delivery)).resolves.toMatchObject({ duplicates: [] });
    expect(onError).toHaveBeenCalledTimes(1);
  });

  it('reports a redelivery that arrives while the first attempt runs (503) with its delivery key', async () => {
    const onError = vi.fn();
    let release!: () => void;
    const reading = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reached!: () => void;
    const readingStarted = new Promise<void>((resolve) => {
      reached = resolve;
    });
    const deduplicate = createMemoryDeduplicationStore();
    const first = handler(
      { deduplicate },
      {
        upstreamRead: () => {
          reached();
          return reading;
        },
      },
    ).onError(onError);
    const delivery = await signedDelivery('{"ref":"A6","items":1}');
    const running = first.handle(delivery);
    // The redelivery starts once the first attempt holds the lease (both verify concurrently otherwise, and either
    // could take it first).
    await readingStarted;
    await expect(first.handle(delivery)).rejects.toMatchObject({ reason: 'delivery_in_progress' });
    expect(onError.mock.calls[0]?.[1]).toEqual({
      provider: 'providerN',
      stage: 'verification',
      deliveryKey: 'A6',
      events: [],
    });
    release();
    await running;
  });
});

describe('rotating the webhook secret (docs/architecture.md#credential-rotation)', () => {
  /** The `secretIndex` of every `pay:webhook` message published while `run` runs. */
  async function tracedSecretIndexes(run: () => Promise<unknown>): Promise<unknown[]> {
    const seen: unknown[] = [];
    const onWebhook = (message: unknown) =>
      void seen.push((message as { secretIndex?: unknown }).secretIndex);
    dc.subscribe(PAY_CHANNELS.webhook, onWebhook);
    try {
      await run();
    } finally {
      dc.unsubscribe(PAY_CHANNELS.webhook, onWebhook);
    }
    return seen;
  }

  it('accepts a delivery signed with the old or the new secret and says which one verified it', async () => {
    const delivery = await signedDelivery('{"ref":"K1","items":1}');
    const callback = vi.fn();
    const rotating = handler({ webhookSecret: ['whsec_new', WEBHOOK_SECRET] }).on(
      'payment.updated',
      callback,
    );
    expect(await tracedSecretIndexes(() => rotating.handle(delivery))).toEqual([1]);
    expect(callback).toHaveBeenCalledTimes(1);
    const retiring = handler({ webhookSecret: [WEBHOOK_SECRET, 'whsec_new'] });
    expect(await tracedSecretIndexes(() => retiring.handle(delivery))).toEqual([0]);
  });

  it('refuses a delivery that none of the secrets verifies, and runs no callback', async () => {
    const callback = vi.fn();
    const rotated = handler({ webhookSecret: ['whsec_new', 'whsec_newer'] }).on('payment.updated', callback);
    const delivery = await signedDelivery('{"ref":"K2","items":1}');
    const seen = await tracedSecretIndexes(() =>
      expect(rotated.handle(delivery)).rejects.toMatchObject({ reason: 'invalid_signature' }),
    );
    expect(seen).toEqual([undefined]);
    expect(callback).not.toHaveBeenCalled();
  });

  it('refuses an empty list of secrets, or one with an empty member, at setup', () => {
    for (const webhookSecret of [[], ['whsec_new', ''], '']) {
      expect(() => handler({ webhookSecret })).toThrow(ConfigurationError);
    }
  });

  it('refuses a blank secret at setup, so no delivery signed with white space verifies', () => {
    for (const webhookSecret of [' ', '\n\t', [WEBHOOK_SECRET, '   ']]) {
      const thrown = thrownBy(() => handler({ webhookSecret }));
      expect(thrown).toBeInstanceOf(ConfigurationError);
      expect(thrown).toMatchObject({ code: 'configuration_error', missing: ['webhookSecret'] });
    }
  });

  it('verifies with the secret trimmed, as it was checked', async () => {
    const padded = handler({ webhookSecret: ` ${WEBHOOK_SECRET}\n` });
    await expect(padded.handle(await signedDelivery('{"ref":"K3","items":1}'))).resolves.toMatchObject({
      duplicates: [],
    });
  });

  it('takes new secrets while running: the next delivery verifies with them, secretIndex counting in the new list', async () => {
    const callback = vi.fn();
    const live = handler({ webhookSecret: 'whsec_old' }).on('payment.updated', callback);
    const delivery = await signedDelivery('{"ref":"K4","items":1}');
    await expect(live.handle(delivery)).rejects.toMatchObject({ reason: 'invalid_signature' });
    live.updateSecrets(['whsec_old', WEBHOOK_SECRET]);
    expect(await tracedSecretIndexes(() => live.handle(delivery))).toEqual([1]);
    live.updateSecrets(WEBHOOK_SECRET);
    expect(await tracedSecretIndexes(() => live.handle(delivery))).toEqual([0]);
    expect(callback).toHaveBeenCalledTimes(2);
  });

  it('keeps the working secrets when updateSecrets is given none or a blank one', async () => {
    const live = handler();
    for (const webhookSecret of ['', '   ', [], ['whsec_new', ' \t']]) {
      const thrown = thrownBy(() => live.updateSecrets(webhookSecret));
      expect(thrown).toBeInstanceOf(ConfigurationError);
      expect(thrown).toMatchObject({ missing: ['webhookSecret'] });
      expect(String((thrown as Error).message)).not.toContain('whsec_new');
    }
    const delivery = await signedDelivery('{"ref":"K5","items":1}');
    expect(await tracedSecretIndexes(() => live.handle(delivery))).toEqual([0]);
  });

  it('lets a delivery already being verified finish with the secrets it started with', async () => {
    let verifying!: () => void;
    const started = new Promise<void>((resolve) => (verifying = resolve));
    let proceed!: () => void;
    const held = new Promise<void>((resolve) => (proceed = resolve));
    const { adapter } = createTestAdapter();
    const verify = adapter.webhooks.verify;
    const slow = {
      ...adapter,
      webhooks: {
        ...adapter.webhooks,
        async verify(...args: Parameters<typeof verify>) {
          verifying();
          await held;
          return verify(...args);
        },
      },
    };
    const live = createPay(slow).webhooks.setup({ webhookSecret: WEBHOOK_SECRET });
    const running = live.handle(await signedDelivery('{"ref":"K6","items":1}'));
    await started;
    live.updateSecrets('whsec_new');
    proceed();
    await expect(running).resolves.toMatchObject({ duplicates: [] });
  });
});

describe('registration', () => {
  it('refuses a callback that is not a function when it is registered', () => {
    const registrations: [string, (h: ReturnType<typeof handler>) => unknown][] = [
      ['.on("payment.updated", callback)', (h) => h.on('payment.updated', 'not a function' as never)],
      ['.on(["payment.updated"], callback)', (h) => h.on(['payment.updated'], undefined as never)],
      ['.onAny(callback)', (h) => h.onAny(null as never)],
      ['.onError(callback)', (h) => h.onError({} as never)],
    ];
    for (const [registration, register] of registrations) {
      const thrown = thrownBy(() => register(handler()));
      expect(thrown).toBeInstanceOf(ConfigurationError);
      expect((thrown as Error).message).toContain(`${registration} takes a function as its callback`);
    }
  });

  it('registers nothing of a call that names an unknown event', async () => {
    const callback = vi.fn();
    const h = handler();
    expect(() => h.on(['payment.updated', 'payment.unknown' as never], callback)).toThrow(ConfigurationError);
    await h.handle(await signedDelivery('{"ref":"K7","items":1}'));
    expect(callback).not.toHaveBeenCalled();
  });
});

function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('the logger along a delivery (docs/architecture.md#webhook-handler)', () => {
  it('is in scope for the adapter’s confirmation and the callbacks only, never for the handler’s own steps', async () => {
    const seen: Record<string, boolean> = {};
    const logger = { debug: vi.fn() };
    const record = (step: string) => {
      seen[step] = ambientLogger() !== SILENT_LOGGER;
    };
    const { adapter } = createTestAdapter({
      afterSignature: () => record('verify'),
      upstreamRead: async () => record('events'),
    });
    await createPay(adapter, { logger })
      .webhooks.setup({ webhookSecret: WEBHOOK_SECRET })
      .on('payment.updated', () => record('callback'))
      .handle(await signedDelivery('{"ref":"LG1","items":1}'));
    expect(seen).toEqual({ verify: false, events: true, callback: true });
  });
});
