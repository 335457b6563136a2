import { describe, expectTypeOf, it } from 'vitest';
import type { OperationImplementations } from '../src/adapter.js';
import type {
  AdapterDefinition,
  IdempotencyContext,
  OperationContext,
  ResolveLookup,
} from '../src/adapter-toolkit.js';
import {
  type CallOptions,
  createPay,
  type IdempotencyStore,
  type JsonValue,
  type PayOptions,
  type ResolveResult,
  type StoreError,
  type TokenStore,
  type TransportOptions,
} from '../src/index.js';
import { type LedgerTypes, ledgerAdapter } from './ledger-fixtures.js';

describe('types of idempotency, stores and per-call options', () => {
  const pay = createPay(ledgerAdapter({}));

  it('accepts an idempotency key, timeoutMs and retry per call', () => {
    expectTypeOf<CallOptions['idempotencyKey']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<CallOptions['timeoutMs']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<CallOptions['retry']>().toEqualTypeOf<number | undefined>();
    pay.payments.create({ amount: 1 }, { idempotencyKey: 'k', timeoutMs: 5_000, retry: 0 });
    // @ts-expect-error an idempotency key is a string
    pay.payments.create({ amount: 1 }, { idempotencyKey: 42 });
  });

  it('hands implementations the ledger context', () => {
    expectTypeOf<OperationContext['idempotency']>().toEqualTypeOf<IdempotencyContext | undefined>();
    expectTypeOf<IdempotencyContext['recoveryPoint']>().toEqualTypeOf<JsonValue | null>();
    expectTypeOf<IdempotencyContext['checkpoint']>().toEqualTypeOf<(point: JsonValue) => Promise<void>>();
    expectTypeOf<
      Parameters<OperationImplementations<LedgerTypes>['createPayment']>[1]
    >().toEqualTypeOf<OperationContext>();
    expectTypeOf<
      Parameters<NonNullable<AdapterDefinition<LedgerTypes>['resolve']>>[0]
    >().toEqualTypeOf<ResolveLookup>();
  });

  it('takes the store options in createPay', () => {
    expectTypeOf<PayOptions['idempotency']>().toEqualTypeOf<IdempotencyStore | undefined>();
    expectTypeOf<PayOptions['idempotencyRetentionSeconds']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<PayOptions['idempotencyLeaseSeconds']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<Parameters<NonNullable<PayOptions['onStoreError']>>[0]>().toEqualTypeOf<StoreError>();
    expectTypeOf<TransportOptions['tokenStore']>().toEqualTypeOf<TokenStore | undefined>();
  });

  it('answers resolve with one of three statuses', () => {
    expectTypeOf(pay.resolve('k')).toEqualTypeOf<Promise<ResolveResult>>();
    expectTypeOf<ResolveResult['status']>().toEqualTypeOf<'found' | 'not_found' | 'unknown'>();
    // @ts-expect-error only money-moving operations can be resolved
    pay.resolve('k', { operation: 'payments.retrieve' });
  });
});
