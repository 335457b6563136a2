/**
 * The adapter contract suite's checks (docs/architecture.md#conformance-suite): what an adapter must honour, as a list
 * of named checks that `contract.ts` registers with vitest or runs as findings.
 */
import { expect, vi } from 'vitest';
import type { AnyAdapter } from '../adapter.js';
import { ConfigurationError, ProviderNotSupportedError } from '../errors.js';
import { isOperation, OPERATION_NAMES, OPERATIONS } from '../operations.js';
import { createPay } from '../pay.js';
import { createMemoryDeduplicationStore } from '../webhooks/dedupe.js';
import { lowerCaseHeaders } from '../webhooks/delivery.js';
import { WebhookVerificationError } from '../webhooks/errors.js';
import type { WebhookRequest } from '../webhooks/types.js';
import {
  type AuthenticatedDelivery,
  NORMALISED_EVENT_NAMES,
  type WebhookDelivery,
} from '../webhooks/types.js';
import { moneySafetyChecks } from './contract-money.js';
import type { AnySimulator, ContractCheck, SimulatorContract } from './contract-types.js';

/** What an adapter package supplies to the contract suite (docs/architecture.md#conformance-suite). */
export interface AdapterContract<S extends AnySimulator = AnySimulator, A extends AnyAdapter = AnyAdapter> {
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
  /**
   * Present when the provider signs no bytes of its deliveries (Provider R's push carries the shared secret among
   * its fields and is confirmed by a status read): the suite then does not expect a re-serialised delivery to be
   * refused. Absent: a delivery re-serialised (spacing, key order, escapes) must be refused.
   */
  unsignedBody?: { because: string };
  /**
   * The money-safety checks against the provider's simulator: statuses, faults, amounts, unknown ids, records and
   * credentials. Required of every adapter that has a simulator.
   */
  simulator?: SimulatorContract<S, A>;
}

/** How many handlers race for one webhook delivery, as several instances behind one endpoint would. */
const CONCURRENT_HANDLERS = 4;

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

/** `value` with the keys of every object in reverse order. */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([key, inner]) => [key, reversedKeys(inner)]),
  );
}

/** JSON text with every non-ASCII character and `/` escaped, as some serialisers write them. */
const escapedJson = (value: unknown) =>
  JSON.stringify(value)
    .replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replace(/\//g, '\\/');

/**
 * The same delivery written another way (docs/architecture.md#conformance-suite): what a handler that parsed the
 * body and serialised it again would check the signature over. JSON gets other spacing, key order and escapes; a
 * form gets its fields reordered. Only the ones whose bytes differ from `raw` are returned.
 */
function reserialised(raw: string): { name: string; body: string }[] {
  let variants: { name: string; body: string }[];
  try {
    const parsed = JSON.parse(raw) as unknown;
    variants = [
      { name: 'other spacing', body: JSON.stringify(parsed, null, 2) },
      { name: 'reversed key order', body: JSON.stringify(reversedKeys(parsed)) },
      { name: 'escaped characters and spacing', body: `${escapedJson(parsed)} ` },
    ];
  } catch {
    const fields = [...new URLSearchParams(raw)];
    variants = [{ name: 'reordered form fields', body: new URLSearchParams(fields.reverse()).toString() }];
  }
  return variants.filter(({ body }) => body !== raw);
}

/** The secrets `setup({ webhookSecret })` hands the adapter's `verify`: none for a provider that uses none. */
function secretsOf(contract: AdapterContract): string[] {
  return contract.webhookSecret === null ? [] : [contract.webhookSecret];
}

/** The delivery key a fresh adapter (another process) derives from the genuine webhook. */
async function deliveryKeyOf(contract: AdapterContract): Promise<string> {
  const adapter = contract.createAdapter(contract.webhookFetch ?? forbiddenFetch());
  const delivery = deliveryOf(await contract.genuineWebhook());
  return ((await adapter.webhooks.verify(delivery, secretsOf(contract))) as AuthenticatedDelivery).key;
}

/** Every event name the adapter raises, normalised (its `eventNames`, else all of them) and raw. */
function everyEventOf(adapter: AnyAdapter): never {
  return [
    ...(adapter.webhooks.eventNames ?? NORMALISED_EVENT_NAMES),
    ...adapter.webhooks.rawEventNames,
  ] as never;
}

/**
 * Every check of the contract suite for `contract`, as functions: each throws an assertion error naming what the
 * adapter got wrong. `runAdapterContract` registers them with vitest; `checkAdapterContract` runs them.
 */
export function adapterContractChecks<S extends AnySimulator, A extends AnyAdapter>(
  contract: AdapterContract<S, A>,
): ContractCheck[] {
  const checks: ContractCheck[] = [];
  const check = (name: string, run: () => void | Promise<void>) =>
    checks.push({ name, run: async () => run() });
  check('declares capabilities that match its methods, and pay.supports() reports them', () => {
    const adapter = contract.createAdapter(forbiddenFetch());
    const pay = createPay(adapter);
    for (const operation of OPERATION_NAMES) {
      const method = OPERATIONS[operation].method;
      expect(typeof (adapter as unknown as Record<string, unknown>)[method], method).toBe('function');
      expect(pay.supports(operation), operation).toBe(adapter.capabilities.includes(operation));
    }
    expect(adapter.capabilities.length).toBeGreaterThan(0);
  });

  check('supports only operations of the operation table, each once', () => {
    const { capabilities } = contract.createAdapter(forbiddenFetch());
    for (const operation of capabilities) expect(isOperation(operation), String(operation)).toBe(true);
    expect(new Set(capabilities).size).toBe(capabilities.length);
  });

  check(
    'throws ProviderNotSupportedError for every unsupported operation before validation and before any I/O',
    async () => {
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
    },
  );

  check('names every missing environment variable in one ConfigurationError', () => {
    let error: unknown;
    try {
      for (const name of contract.requiredEnv) vi.stubEnv(name, '');
      contract.defaultFactory();
    } catch (thrown) {
      error = thrown;
    } finally {
      vi.unstubAllEnvs();
    }
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as ConfigurationError).missing).toEqual(expect.arrayContaining([...contract.requiredEnv]));
    for (const name of contract.requiredEnv) expect((error as Error).message).toContain(name);
  });

  check('accepts a genuine webhook, and a redelivery yields the same event ids', async () => {
    const adapter = contract.createAdapter(contract.webhookFetch ?? forbiddenFetch());
    const handler = createPay(adapter).webhooks.setup({ webhookSecret: contract.webhookSecret });
    const first = await handler.handle(await contract.genuineWebhook());
    expect(first.events.length).toBeGreaterThan(0);
    const ids = first.events.map((event) => event.id);
    expect(new Set(ids).size).toBe(ids.length);
    const again = await handler.handle(await contract.genuineWebhook());
    expect(again.events.map((event) => event.id)).toEqual(ids);
  });

  check(
    'authenticates a webhook with no upstream call, resolving to a delivery key that is stable on redelivery',
    async () => {
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
    },
  );

  if (contract.webhookSecret !== null)
    check(
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

  check(
    'with a deduplication store, skips a redelivery before any upstream call and reports its delivery key',
    async () => {
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
      const key = await deliveryKeyOf(contract);
      for (let redelivery = 0; redelivery < 3; redelivery += 1) {
        expect(await handler.handle(await contract.genuineWebhook())).toEqual({
          events: [],
          duplicates: [key],
        });
      }
      expect(upstream.calls(), 'upstream calls made for redeliveries').toBe(callsAfterFirst);
      expect(callback).toHaveBeenCalledTimes(dispatched);
    },
  );

  check(
    `runs each callback once when ${CONCURRENT_HANDLERS} instances handle one delivery at once with one deduplication store, and a redelivery is a duplicate`,
    async () => {
      // Each handler has its own adapter, as each process of a deployment has: the delivery key must come from
      // the delivery alone, or the shared store never matches (docs/architecture.md#conformance-suite).
      const deduplicate = createMemoryDeduplicationStore();
      const callback = vi.fn();
      const handler = () => {
        const adapter = contract.createAdapter(contract.webhookFetch ?? forbiddenFetch());
        return createPay(adapter)
          .webhooks.setup({ webhookSecret: contract.webhookSecret, deduplicate })
          .on(everyEventOf(adapter), callback);
      };
      const handlers = Array.from({ length: CONCURRENT_HANDLERS }, handler);
      const deliveries = await Promise.all(handlers.map(() => contract.genuineWebhook()));
      const settled = await Promise.allSettled(
        handlers.map((each, index) => each.handle(deliveries[index] as WebhookRequest)),
      );
      for (const outcome of settled)
        if (outcome.status === 'rejected')
          expect(outcome.reason, 'a handler that lost the race').toMatchObject({
            reason: 'delivery_in_progress',
          });
      const handled = settled.flatMap((outcome) =>
        outcome.status === 'fulfilled' ? outcome.value.events : [],
      );
      const ids = handled.map((event) => event.id);
      expect(ids.length, 'events handled by the racing handlers').toBeGreaterThan(0);
      expect(new Set(ids).size, `event ids handled: ${ids.join(', ')}`).toBe(ids.length);
      expect(callback, 'callback runs').toHaveBeenCalledTimes(ids.length);
      const key = await deliveryKeyOf(contract);
      expect(await handler().handle(await contract.genuineWebhook())).toEqual({
        events: [],
        duplicates: [key],
      });
      expect(callback, 'callback runs after a redelivery').toHaveBeenCalledTimes(ids.length);
    },
  );

  check('refuses a parsed body, telling the caller to pass the raw body', async () => {
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
    check(`refuses a tampered webhook (${variant.name}) and runs no callback`, async () => {
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

  if (!contract.unsignedBody)
    check(
      'refuses a genuine delivery re-serialised (spacing, key order, escapes): the signature covers the raw bytes',
      async () => {
        const genuine = await contract.genuineWebhook();
        const variants = reserialised(new TextDecoder().decode(deliveryOf(genuine).rawBody));
        expect(variants.length, 'ways to re-serialise the genuine delivery').toBeGreaterThan(0);
        for (const { name, body } of variants) {
          const adapter = contract.createAdapter(contract.webhookFetch ?? forbiddenFetch());
          const handler = createPay(adapter).webhooks.setup({ webhookSecret: contract.webhookSecret });
          const error = await handler.handle({ ...genuine, body }).then(
            () => undefined,
            (thrown: unknown) => thrown,
          );
          expect(WebhookVerificationError.isInstance(error), `the delivery re-serialised with ${name}`).toBe(
            true,
          );
        }
      },
    );

  check('refuses to register a callback for an event name it never raises', () => {
    const adapter = contract.createAdapter(forbiddenFetch());
    const handler = createPay(adapter).webhooks.setup({ webhookSecret: contract.webhookSecret });
    expect(() => handler.on('payment.succeded' as never, () => {})).toThrow(ConfigurationError);
  });

  if (contract.simulator) checks.push(...moneySafetyChecks(contract.simulator));
  return checks.map(({ name, run }) => ({
    name,
    run: async () => {
      expectFilledIn(contract);
      await run();
    },
  }));
}

/**
 * Fails every check of an adapter that performs nothing yet (an unfilled skeleton): no check may pass vacuously
 * over no operations or no events (docs/architecture.md#conformance-suite).
 */
function expectFilledIn(contract: AdapterContract): void {
  const adapter = contract.createAdapter(forbiddenFetch());
  expect(
    adapter.capabilities.length,
    'operations the adapter performs (none: the skeleton is not filled in)',
  ).toBeGreaterThan(0);
  const events = [...(adapter.webhooks.eventNames ?? []), ...adapter.webhooks.rawEventNames];
  expect(
    events.length,
    'webhook events the adapter raises (none: the skeleton is not filled in)',
  ).toBeGreaterThan(0);
}

/** A check the adapter failed, and why. */
export interface ContractFinding {
  check: string;
  message: string;
}

/**
 * Runs every check of the suite one after the other and resolves to the ones the adapter fails (none: it honours
 * the contract). For a suite's own tests, and for tooling that reports rather than fails.
 */
export async function checkAdapterContract<S extends AnySimulator, A extends AnyAdapter>(
  contract: AdapterContract<S, A>,
): Promise<ContractFinding[]> {
  const findings: ContractFinding[] = [];
  for (const { name, run } of adapterContractChecks(contract)) {
    try {
      await run();
    } catch (error) {
      findings.push({ check: name, message: error instanceof Error ? error.message : String(error) });
    }
  }
  return findings;
}
