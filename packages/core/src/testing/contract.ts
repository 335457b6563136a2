/**
 * The adapter contract suite (docs/architecture.md#testing): every adapter package runs it from its own tests, so the promises
 * `@pay/core` makes hold for every provider alike.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AnyAdapter } from '../adapter.js';
import {
  ConfigurationError,
  ProviderApiError,
  type ProviderErrorKind,
  ProviderNotSupportedError,
} from '../errors.js';
import { isOperation, OPERATION_NAMES, OPERATIONS } from '../operations.js';
import { createPay, type Pay } from '../pay.js';
import { createMemoryDeduplicationStore } from '../webhooks/dedupe.js';
import { lowerCaseHeaders } from '../webhooks/delivery.js';
import { WebhookVerificationError } from '../webhooks/errors.js';
import type { WebhookRequest } from '../webhooks/handler.js';
import {
  type AuthenticatedDelivery,
  NORMALISED_EVENT_NAMES,
  type WebhookDelivery,
} from '../webhooks/types.js';

/** What an adapter package supplies to the contract suite. */
export interface AdapterContract {
  /** Suite title, e.g. `'@pay/provider-r'`. */
  name: string;
  /** A configured adapter whose every upstream call goes through `fetch`. */
  createAdapter(fetch: typeof globalThis.fetch): AnyAdapter;
  /** The package's default factory, called with no overrides: it must read the environment when called. */
  defaultFactory(): AnyAdapter;
  /** Required environment variables; each must be named when missing. */
  requiredEnv: readonly string[];
  /** The `webhookSecret` to pass to `setup()`. */
  webhookSecret: string | null;
  /** A genuine delivery; verifying it must succeed with `createAdapter(webhookFetch)`. */
  genuineWebhook(): Promise<WebhookRequest>;
  /** Answers the upstream calls verification makes (Provider R's status confirmation). Default: none allowed. */
  webhookFetch?: typeof globalThis.fetch;
  /** Tampered variants of the genuine delivery, each of which must be refused. */
  tamperedWebhooks: {
    name: string;
    tamper(genuine: WebhookRequest): WebhookRequest | Promise<WebhookRequest>;
  }[];
  /** The end-to-end checks against the provider's simulator (run when given). */
  simulator?: SimulatorContract;
}

/**
 * The end-to-end part of the contract, against the provider's simulator over loopback (`@pay/core/testing`'s
 * `PaymentSimulator`): what operations return and how the provider's refusals surface.
 */
export interface SimulatorContract {
  /** Starts the simulator and returns an adapter configured for it (`simulator.adapterConfig()`), and `close`. */
  start(): Promise<{ adapter: AnyAdapter; close(): Promise<void> }>;
  /**
   * Runs operations that resolve to records (e.g. create a payment, then retrieve it) and returns what they
   * resolved to: every record must carry the provider's `request_id` of the call that produced it.
   */
  produceRecords(pay: Pay<AnyAdapter>): Promise<unknown[]>;
  /**
   * Makes the provider refuse a call (an unknown payment refunded, a declined card…) and returns the promise of
   * that call: it must reject with a `ProviderApiError` carrying a portable `kind`.
   */
  refusedCall(pay: Pay<AnyAdapter>): Promise<unknown>;
}

/** The portable kinds of a provider refusal (`ProviderApiError.kind`). */
const PROVIDER_ERROR_KINDS = new Set<ProviderErrorKind>([
  'authentication',
  'invalid_request',
  'not_found',
  'conflict',
  'rate_limited',
  'provider_unavailable',
  'declined',
] satisfies ProviderErrorKind[]);

/** A fetch that fails the test when called: proves an operation did no I/O. */
function forbiddenFetch() {
  return vi.fn(async () => {
    throw new Error('no upstream call was expected');
  }) as unknown as typeof globalThis.fetch & ReturnType<typeof vi.fn>;
}

/** Wraps `fetch` and counts the upstream calls made through it. */
function countingFetch(fetch: typeof globalThis.fetch): { fetch: typeof globalThis.fetch; calls(): number } {
  let calls = 0;
  return {
    fetch: ((...args: Parameters<typeof globalThis.fetch>) => {
      calls += 1;
      return fetch(...args);
    }) as typeof globalThis.fetch,
    calls: () => calls,
  };
}

/** The delivery the handler hands an adapter's `verify`, built from a `handle()` request. */
function deliveryOf(request: WebhookRequest): WebhookDelivery {
  const rawBody = typeof request.body === 'string' ? new TextEncoder().encode(request.body) : request.body;
  return {
    rawBody,
    body: new TextDecoder().decode(rawBody),
    headers: lowerCaseHeaders(request.headersAsObject),
    fullUrl: request.fullUrl,
  };
}

/** The secrets `setup({ webhookSecret })` hands the adapter's `verify`: none for a provider that uses none. */
function secretsOf(contract: AdapterContract): string[] {
  return contract.webhookSecret === null ? [] : [contract.webhookSecret];
}

/** Every event name the adapter raises, normalised (its `eventNames`, else all of them) and raw. */
function everyEventOf(adapter: AnyAdapter): never {
  return [
    ...(adapter.webhooks.eventNames ?? NORMALISED_EVENT_NAMES),
    ...adapter.webhooks.rawEventNames,
  ] as never;
}

/** Registers the contract suite with vitest. */
export function runAdapterContract(contract: AdapterContract): void {
  describe(`${contract.name} honours the adapter contract`, () => {
    afterEach(() => {
      vi.unstubAllEnvs();
    });

    it('declares capabilities that match its methods, and pay.supports() reports them', () => {
      const adapter = contract.createAdapter(forbiddenFetch());
      const pay = createPay(adapter);
      for (const operation of OPERATION_NAMES) {
        const method = OPERATIONS[operation].method;
        expect(typeof (adapter as unknown as Record<string, unknown>)[method], method).toBe('function');
        expect(pay.supports(operation), operation).toBe(adapter.capabilities.includes(operation));
      }
      expect(adapter.capabilities.length).toBeGreaterThan(0);
    });

    it('supports only operations of the operation table, each once', () => {
      const { capabilities } = contract.createAdapter(forbiddenFetch());
      for (const operation of capabilities) expect(isOperation(operation), String(operation)).toBe(true);
      expect(new Set(capabilities).size).toBe(capabilities.length);
    });

    it('throws ProviderNotSupportedError for every unsupported operation before validation and before any I/O', async () => {
      const fetch = forbiddenFetch();
      const adapter = contract.createAdapter(fetch);
      const unsupported = OPERATION_NAMES.filter((operation) => !adapter.capabilities.includes(operation));
      for (const operation of unsupported) {
        const method = OPERATIONS[operation].method;
        // Deliberately invalid arguments: the capability check must come first.
        const call = (adapter[method] as (...args: unknown[]) => Promise<unknown>)(42, { bogus: true });
        const error = await call.then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
        expect(ProviderNotSupportedError.isInstance(error), operation).toBe(true);
        expect(error).toMatchObject({
          code: 'provider_not_supported',
          provider: adapter.provider,
          operation,
        });
        expect((error as ProviderNotSupportedError).reason.length).toBeGreaterThan(0);
      }
      expect(fetch).not.toHaveBeenCalled();
    });

    it('names every missing environment variable in one ConfigurationError', () => {
      for (const name of contract.requiredEnv) vi.stubEnv(name, '');
      let error: unknown;
      try {
        contract.defaultFactory();
      } catch (thrown) {
        error = thrown;
      }
      expect(ConfigurationError.isInstance(error)).toBe(true);
      expect((error as ConfigurationError).missing).toEqual(
        expect.arrayContaining([...contract.requiredEnv]),
      );
      for (const name of contract.requiredEnv) expect((error as Error).message).toContain(name);
    });

    it('accepts a genuine webhook, and a redelivery yields the same event ids', async () => {
      const adapter = contract.createAdapter(contract.webhookFetch ?? forbiddenFetch());
      const handler = createPay(adapter).webhooks.setup({ webhookSecret: contract.webhookSecret });
      const first = await handler.handle(await contract.genuineWebhook());
      expect(first.events.length).toBeGreaterThan(0);
      const ids = first.events.map((event) => event.id);
      expect(new Set(ids).size).toBe(ids.length);
      const again = await handler.handle(await contract.genuineWebhook());
      expect(again.events.map((event) => event.id)).toEqual(ids);
    });

    it('authenticates a webhook with no upstream call, resolving to a delivery key that is stable on redelivery', async () => {
      const upstream = countingFetch(contract.webhookFetch ?? forbiddenFetch());
      const adapter = contract.createAdapter(upstream.fetch);
      const first = await adapter.webhooks.verify(
        deliveryOf(await contract.genuineWebhook()),
        secretsOf(contract),
      );
      expect(upstream.calls(), 'upstream calls made by verify()').toBe(0);
      expect(Array.isArray(first), 'verify() resolves to { key, events() }, not to the events').toBe(false);
      const authenticated = first as AuthenticatedDelivery;
      expect(typeof authenticated.key).toBe('string');
      expect(authenticated.key.length).toBeGreaterThan(0);
      expect(typeof authenticated.events).toBe('function');
      const again = (await adapter.webhooks.verify(
        deliveryOf(await contract.genuineWebhook()),
        secretsOf(contract),
      )) as AuthenticatedDelivery;
      expect(again.key).toBe(authenticated.key);
      expect((await authenticated.events()).length).toBeGreaterThan(0);
    });

    it.skipIf(contract.webhookSecret === null)(
      'while its webhook secret is rotated, accepts a delivery signed with the old or the new one and says which one verified it',
      async () => {
        const adapter = contract.createAdapter(contract.webhookFetch ?? forbiddenFetch());
        const secret = contract.webhookSecret!;
        const other = `${secret}-other`;
        const delivery = async () => deliveryOf(await contract.genuineWebhook());
        expect((await adapter.webhooks.verify(await delivery(), [secret, other])).secretIndex).toBe(0);
        expect((await adapter.webhooks.verify(await delivery(), [other, secret])).secretIndex).toBe(1);
        await expect(adapter.webhooks.verify(await delivery(), [other])).rejects.toBeInstanceOf(
          WebhookVerificationError,
        );
      },
    );

    it('with a deduplication store, skips a redelivery before any upstream call and reports its delivery key', async () => {
      const upstream = countingFetch(contract.webhookFetch ?? forbiddenFetch());
      const adapter = contract.createAdapter(upstream.fetch);
      const callback = vi.fn();
      const handler = createPay(adapter)
        .webhooks.setup({
          webhookSecret: contract.webhookSecret,
          deduplicate: createMemoryDeduplicationStore(),
        })
        .on(everyEventOf(adapter), callback);
      const first = await handler.handle(await contract.genuineWebhook());
      expect(first.duplicates).toEqual([]);
      const callsAfterFirst = upstream.calls();
      const dispatched = callback.mock.calls.length;
      const { key } = (await contract
        .createAdapter(contract.webhookFetch ?? forbiddenFetch())
        .webhooks.verify(
          deliveryOf(await contract.genuineWebhook()),
          secretsOf(contract),
        )) as AuthenticatedDelivery;
      for (let redelivery = 0; redelivery < 3; redelivery += 1) {
        expect(await handler.handle(await contract.genuineWebhook())).toEqual({
          events: [],
          duplicates: [key],
        });
      }
      expect(upstream.calls(), 'upstream calls made for redeliveries').toBe(callsAfterFirst);
      expect(callback).toHaveBeenCalledTimes(dispatched);
    });

    it('refuses a parsed body, telling the caller to pass the raw body', async () => {
      const adapter = contract.createAdapter(contract.webhookFetch ?? forbiddenFetch());
      const handler = createPay(adapter).webhooks.setup({ webhookSecret: contract.webhookSecret });
      const genuine = await contract.genuineWebhook();
      const parsed = { ...genuine, body: { parsed: true } as unknown as string };
      await expect(handler.handle(parsed)).rejects.toMatchObject({
        code: 'webhook_verification_failed',
        reason: 'raw_body_required',
      });
    });

    for (const variant of contract.tamperedWebhooks) {
      it(`refuses a tampered webhook (${variant.name}) and runs no callback`, async () => {
        const adapter = contract.createAdapter(contract.webhookFetch ?? forbiddenFetch());
        const callback = vi.fn();
        const handler = createPay(adapter).webhooks.setup({ webhookSecret: contract.webhookSecret });
        handler.on(everyEventOf(adapter), callback);
        const error = await handler.handle(await variant.tamper(await contract.genuineWebhook())).then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
        expect(WebhookVerificationError.isInstance(error)).toBe(true);
        expect(callback).not.toHaveBeenCalled();
      });
    }

    it('refuses to register a callback for an event name it never raises', () => {
      const adapter = contract.createAdapter(forbiddenFetch());
      const handler = createPay(adapter).webhooks.setup({ webhookSecret: contract.webhookSecret });
      expect(() => handler.on('payment.succeded' as never, () => {})).toThrow(ConfigurationError);
    });

    const simulator = contract.simulator;
    if (simulator) {
      it("returns records that carry the provider's request id of the call that produced them (simulator)", async () => {
        const { adapter, close } = await simulator.start();
        try {
          const records = await simulator.produceRecords(createPay(adapter));
          expect(records.length).toBeGreaterThan(0);
          for (const record of records) {
            const requestId = (record as { request_id?: unknown } | null)?.request_id;
            expect(typeof requestId, JSON.stringify(record)).toBe('string');
            expect((requestId as string).length).toBeGreaterThan(0);
          }
        } finally {
          await close();
        }
      });

      it('reports a refusal by the provider as a ProviderApiError with a portable kind (simulator)', async () => {
        const { adapter, close } = await simulator.start();
        try {
          const error = await simulator.refusedCall(createPay(adapter)).then(
            () => undefined,
            (thrown: unknown) => thrown,
          );
          expect(ProviderApiError.isInstance(error), String(error)).toBe(true);
          expect(PROVIDER_ERROR_KINDS.has((error as ProviderApiError).kind)).toBe(true);
        } finally {
          await close();
        }
      });
    }
  });
}
