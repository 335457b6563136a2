/**
 * What reaches the idempotency ledger (docs/architecture.md#idempotency): every check runs before it is touched,
 * the fingerprint is of the request as the adapter reads it, a request JSON cannot hold is a `ValidationError`,
 * and only well-formed keys are accepted.
 */
import { describe, expect, it } from 'vitest';
import { createPay, IdempotencyKeyMismatchError, ValidationError } from '../src/index.js';
import { countingStore, downStore, ledgerAdapter, transfer } from './ledger-fixtures.js';

/** An adapter whose own check refuses a label longer than 16 characters and upper-cases `provider_metadata.currency`. */
function checkingAdapter() {
  const sent: unknown[] = [];
  const adapter = ledgerAdapter(
    {
      async createPayment(params) {
        sent.push(params);
        return transfer(`t${sent.length}`);
      },
    },
    undefined,
    {
      createPayment(params) {
        const metadata = (params.provider_metadata ?? {}) as { label?: string; currency?: string };
        if (metadata.label !== undefined && metadata.label.length > 16)
          throw new ValidationError(
            [{ path: 'provider_metadata.label', message: 'must be at most 16 characters' }],
            { operation: 'payments.create' },
          );
        return metadata.currency === undefined
          ? undefined
          : { ...params, provider_metadata: { ...metadata, currency: metadata.currency.toUpperCase() } };
      },
    },
  );
  return { adapter, sent };
}

describe('the ledger sees only requests that can succeed', () => {
  it('refuses input only the adapter checks with its ValidationError before the ledger, even while the store is down', async () => {
    const store = downStore();
    const { adapter, sent } = checkingAdapter();
    const pay = createPay(adapter, { idempotency: store });
    const error = await pay.payments
      .create(
        { amount: 25, currency: 'EUR', provider_metadata: { label: 'seventeen-chars!!' } },
        { idempotencyKey: 'order-label' },
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({
      issues: [{ path: 'provider_metadata.label', message: 'must be at most 16 characters' }],
      context: { idempotencyKey: 'order-label' },
    });
    expect(store.calls).toEqual([]);
    expect(sent).toEqual([]);
  });

  it('fingerprints the request as the adapter reads it: provider_metadata.currency ngn and NGN are one request', async () => {
    const store = countingStore();
    const { adapter, sent } = checkingAdapter();
    const pay = createPay(adapter, { idempotency: store });
    const first = await pay.payments.create(
      { amount: 25, currency: 'EUR', provider_metadata: { currency: 'ngn' } },
      { idempotencyKey: 'order-case' },
    );
    const again = await pay.payments.create(
      { amount: 25, currency: 'EUR', provider_metadata: { currency: 'NGN' } },
      { idempotencyKey: 'order-case' },
    );
    expect(again).toEqual(first);
    expect(sent).toEqual([{ amount: 25, currency: 'EUR', provider_metadata: { currency: 'NGN' } }]);
    await expect(
      pay.payments.create(
        { amount: 25, currency: 'EUR', provider_metadata: { currency: 'EUR' } },
        { idempotencyKey: 'order-case' },
      ),
    ).rejects.toBeInstanceOf(IdempotencyKeyMismatchError);
  });

  it('refuses a BigInt in provider_metadata with a ValidationError naming it, never a TypeError', async () => {
    const store = countingStore();
    const sent: unknown[] = [];
    const adapter = ledgerAdapter({
      async createPayment(params) {
        sent.push(params);
        return transfer('t1');
      },
    });
    const pay = createPay(adapter, { idempotency: store });
    const error = await pay.payments
      .create(
        { amount: 25, currency: 'EUR', provider_metadata: { limits: { daily: 10n } } },
        { idempotencyKey: 'order-bigint' },
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({
      issues: [
        {
          path: 'provider_metadata.limits.daily',
          message: 'is a BigInt, which JSON cannot carry: pass a number or a string',
        },
      ],
      context: { idempotencyKey: 'order-bigint' },
    });
    expect(store.calls).toEqual([]);
    expect(sent).toEqual([]);
  });
});

describe('idempotency keys are well-formed text', () => {
  it.each([
    ['a\uD800', 'must be well-formed text (it holds a lone UTF-16 surrogate, which has no UTF-8 form)'],
    ['a\uDBFF', 'must be well-formed text (it holds a lone UTF-16 surrogate, which has no UTF-8 form)'],
    ['\uDC00order', 'must be well-formed text (it holds a lone UTF-16 surrogate, which has no UTF-8 form)'],
    ['order\u0085', 'must not contain control characters'],
    ['order\u009b1', 'must not contain control characters'],
  ])('refuses the key %j before any I/O, in calls and in resolve', async (key, message) => {
    const store = countingStore();
    const { adapter, sent } = checkingAdapter();
    const pay = createPay(adapter, { idempotency: store });
    const error = await pay.payments
      .create({ amount: 25, currency: 'EUR' }, { idempotencyKey: key })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues).toEqual([{ path: 'options.idempotencyKey', message }]);
    await expect(pay.resolve(key)).rejects.toMatchObject({ issues: [{ path: 'key', message }] });
    expect(store.calls).toEqual([]);
    expect(sent).toEqual([]);
  });

  it('accepts keys with characters beyond the basic plane and other scripts', async () => {
    const { adapter } = checkingAdapter();
    const pay = createPay(adapter, { idempotency: countingStore() });
    for (const key of ['order-😀', 'commande-é', 'заказ-1'])
      expect(
        (await pay.payments.create({ amount: 25, currency: 'EUR' }, { idempotencyKey: key })).id,
      ).toMatch(/^t/);
  });
});
