import { createHash } from 'node:crypto';
import { type IdempotencyContext, idempotencyKeyOf, keyedReference } from '@pay/core/adapter';
import { describe, expect, it } from 'vitest';
import { KEYED_REFERENCE_PREFIX } from '../src/idempotency-keys.js';

/**
 * The references Provider N (`paymentReference` / `refundReference`) and Provider R (`refId`) sent for these keys
 * before the derivation moved into core, computed with each adapter's own code: references already at the
 * providers must keep matching, so these values never change.
 */
const SENT_BEFORE = {
  'order-1': 'idem-0bafe22156d2698c143b86040446d36',
  'checkout-42': 'idem-94d9658b73ffa9cc43af01051a5a5df',
  a: 'idem-ca978112ca1bbdcafac231b39a23dc4',
  'ž-üñí©ødé key 🙂': 'idem-2d6484607896c0c9da6f38b3f1dff3e',
  ['x'.repeat(255)]: 'idem-d22609da3ae3956ca4877056a8e580e',
} as const;

function ledger(key: string): IdempotencyContext {
  return { key, recoveryPoint: null, checkpoint: async () => undefined };
}

describe('keyedReference: the provider reference derived from an idempotency key', () => {
  it.each(Object.entries(SENT_BEFORE))(
    'gives key %j the reference the adapters already sent',
    async (key, sent) => {
      await expect(keyedReference(key)).resolves.toBe(sent);
    },
  );

  it('is idem- and the first 31 hex digits of SHA-256 of the key’s UTF-8 bytes (36 characters, [0-9a-z-])', async () => {
    const key = 'Žluťoučký kůň';
    const expected = `idem-${createHash('sha256').update(key, 'utf8').digest('hex').slice(0, 31)}`;
    const reference = await keyedReference(key);
    expect(reference).toBe(expected);
    expect(reference).toMatch(/^idem-[0-9a-f]{31}$/);
    expect(KEYED_REFERENCE_PREFIX).toBe('idem-');
  });

  it('gives different keys different references, and one key the same one every time', async () => {
    expect(await keyedReference('order-1001')).not.toBe(await keyedReference('order-1002'));
    expect(await keyedReference('order-1001')).toBe(await keyedReference('order-1001'));
  });

  it('takes another prefix in front of the same digits', async () => {
    await expect(keyedReference('order-1', 'ref-')).resolves.toBe('ref-0bafe22156d2698c143b86040446d36');
  });

  it("takes the key from an operation's context, its options or a resolve lookup: one step for every adapter", async () => {
    const sent = await keyedReference('order-1001');
    expect(await keyedReference({ idempotency: ledger('order-1001'), idempotencyKey: 'other' })).toBe(sent);
    expect(await keyedReference({ idempotencyKey: 'order-1001' })).toBe(sent);
    expect(await keyedReference({ idempotencyKey: 'order-1', idempotency: undefined }, 'ref-')).toBe(
      'ref-0bafe22156d2698c143b86040446d36',
    );
    expect(await keyedReference({})).toBeUndefined();
    expect(await keyedReference(undefined)).toBeUndefined();
  });
});

describe('idempotencyKeyOf: the key of a call', () => {
  it('is the ledger’s key when the call comes through createPay', () => {
    expect(idempotencyKeyOf({ idempotency: ledger('from-ledger'), idempotencyKey: 'from-option' })).toBe(
      'from-ledger',
    );
  });

  it('is the option when the adapter is used alone', () => {
    expect(idempotencyKeyOf({ idempotencyKey: 'from-option' })).toBe('from-option');
  });

  it('is undefined for a call without a key', () => {
    expect(idempotencyKeyOf({})).toBeUndefined();
  });
});
