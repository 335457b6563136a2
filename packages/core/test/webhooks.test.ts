import { describe, expect, it, vi } from 'vitest';
import {
  ConfigurationError,
  createMemoryDeduplicationStore,
  createPay,
  type PayEvent,
  WebhookHandlerError,
  WebhookVerificationError,
} from '../src/index.js';
import { SECRET, signedDelivery, testAdapter } from './fixtures.js';

function handler(options: Partial<Parameters<ReturnType<typeof createPay>['webhooks']['setup']>[0]> = {}) {
  return createPay(testAdapter()).webhooks.setup({ webhookSecret: SECRET, ...options });
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
    const delivery = await signedDelivery('{"ref":"R3","items":1}', 'x-SIGNATURE');
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

  it('refuses a parsed body with a message that shows how to keep the raw body', async () => {
    const error = (await handler()
      .handle({ body: { ref: 'x' } as never, headersAsObject: {}, fullUrl: 'https://shop.example/' })
      .catch((e: unknown) => e)) as WebhookVerificationError;
    expect(error.reason).toBe('raw_body_required');
    expect(error.message).toContain('express.raw');
    expect(error.message).toContain('request.text()');
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

  it('turns an unexpected failure inside verification into a verification error', async () => {
    const delivery = await signedDelivery('not json');
    await expect(handler().handle(delivery)).rejects.toMatchObject({
      code: 'webhook_verification_failed',
      reason: 'malformed_payload',
    });
  });

  it('refuses to register an event name the adapter never raises', () => {
    expect(() => handler().on('providerR.PAID' as never, () => {})).toThrow(ConfigurationError);
    expect(() => handler().on('payment.succeeded', () => {})).not.toThrow();
  });

  it('is fine with a verified event that has no callback', async () => {
    const result = await handler().handle(await signedDelivery('{"ref":"R7","items":1}'));
    expect(result.events).toHaveLength(2);
    expect(result.duplicates).toEqual([]);
  });
});

describe('deduplication', () => {
  it('dispatches a redelivered event once', async () => {
    const callback = vi.fn();
    const h = handler({ deduplicate: createMemoryDeduplicationStore() }).on('payment.updated', callback);
    const delivery = await signedDelivery('{"ref":"D1","items":2}');
    await h.handle(delivery);
    const again = await h.handle(delivery);
    expect(callback).toHaveBeenCalledTimes(2);
    expect(again.duplicates).toEqual([
      'D1:0:payment.updated',
      'D1:1:payment.updated',
      'D1:providerN.SUCCESSFUL_TRANSACTION',
    ]);
  });

  it('releases the claim of an event whose callback failed, so the redelivery runs it again', async () => {
    let failures = 1;
    const callback = vi.fn(() => {
      if (failures-- > 0) throw new Error('database down');
    });
    const h = handler({ deduplicate: createMemoryDeduplicationStore() }).on('payment.updated', callback);
    const delivery = await signedDelivery('{"ref":"D2","items":1}');
    await expect(h.handle(delivery)).rejects.toBeInstanceOf(WebhookHandlerError);
    await h.handle(delivery);
    expect(callback).toHaveBeenCalledTimes(2);
  });

  it('forgets a claim once its time to live has passed', async () => {
    let now = 0;
    const store = createMemoryDeduplicationStore(() => now);
    expect(await store.claim('e1', 60)).toBe(true);
    expect(await store.claim('e1', 60)).toBe(false);
    now = 61_000;
    expect(await store.claim('e1', 60)).toBe(true);
  });
});

describe('parseWebhookPayload', () => {
  it('returns the parsed payload, or refuses a malformed one as malformed_payload naming the fields', async () => {
    const { parseWebhookPayload } = await import('../src/index.js');
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
