/**
 * A fake money-moving adapter for the ledger tests: each operation is injected, so a test decides what the
 * provider does (succeed, checkpoint then lose the reply, refuse) and counts what reached it.
 */

import type { OperationChecks, OperationImplementations } from '../src/adapter.js';
import { defineAdapter, type ResolvedRecord, type ResolveLookup } from '../src/adapter-toolkit.js';
import {
  type AdapterTypes,
  createMemoryIdempotencyStore,
  type IdempotencyStore,
  type Operation,
  type Payment,
  WebhookVerificationError,
} from '../src/index.js';

export interface LedgerTypes extends AdapterTypes {
  provider: 'providerT';
  metadata: { [K in Operation]?: never };
  rawEvents: Record<string, never>;
  checkout: null;
}

/** A payment record as the fake provider answers it. */
export function transfer(id: string, amount = 25): Payment {
  return {
    id,
    amount,
    amount_paid: null,
    currency: 'EUR',
    status: 'pending',
    customer: null,
    item_id: null,
    metadata: {},
    requires_action: false,
    payment_url: null,
    provider: 'providerT',
    livemode: false,
    request_id: null,
    raw: {},
  };
}

/** An adapter with the given operations (and `resolve`), built by core's `defineAdapter`. */
export function ledgerAdapter(
  operations: Partial<OperationImplementations<LedgerTypes>>,
  resolve?: (lookup: ResolveLookup) => Promise<ResolvedRecord>,
  checks?: OperationChecks,
) {
  return defineAdapter<LedgerTypes>({
    provider: 'providerT',
    operations,
    ...(resolve ? { resolve } : {}),
    ...(checks ? { checks } : {}),
    webhooks: {
      rawEventNames: [],
      secret: 'unused',
      async verify() {
        throw new WebhookVerificationError('not used here', { reason: 'invalid_signature' });
      },
    },
  });
}

/** An in-memory ledger that counts every call made to it. */
export function countingStore(now?: () => number): IdempotencyStore & { calls: string[] } {
  const inner = createMemoryIdempotencyStore(now);
  const calls: string[] = [];
  const counted = <K extends keyof IdempotencyStore>(name: K): IdempotencyStore[K] =>
    ((...args: never[]) => {
      calls.push(name);
      return (inner[name] as (...a: never[]) => unknown)(...args);
    }) as IdempotencyStore[K];
  return {
    calls,
    begin: counted('begin'),
    checkpoint: counted('checkpoint'),
    complete: counted('complete'),
    release: counted('release'),
    abandon: counted('abandon'),
    read: counted('read'),
  };
}

/** An error shaped like `@pay/store-postgres`'s when its server is down: it quotes the connection string. */
export class FakeStoreUnavailableError extends Error {
  readonly code = 'store_unavailable';
  constructor() {
    super(
      'connect ECONNREFUSED 127.0.0.1:5433 (postgres://pay_app:s3cr3t-pw@127.0.0.1:5433/pay?sslmode=disable password=s3cr3t-pw)',
    );
    this.name = 'StoreUnavailableError';
  }
}

/** A ledger whose every call fails like a store whose server is down. */
export function downStore(): IdempotencyStore & { calls: string[] } {
  const calls: string[] = [];
  const fail = (name: string) => async () => {
    calls.push(name);
    throw new FakeStoreUnavailableError();
  };
  return {
    calls,
    begin: fail('begin'),
    checkpoint: fail('checkpoint'),
    complete: fail('complete'),
    release: fail('release'),
    abandon: fail('abandon'),
    read: fail('read'),
  };
}

/** A promise with its resolve function, to hold an operation in flight. */
export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}
