import { describe, expect, it } from 'vitest';
import { MANDATE_STATUS, PAYMENT_STATUS, REFUND_STATUS } from '../src/index.js';
import { stringMetadata, withoutCredentials } from '../src/mapping.js';

describe('status tables', () => {
  it('maps every transaction status of the wire contract', () => {
    expect(PAYMENT_STATUS).toEqual({
      PAID: 'succeeded',
      OVERPAID: 'succeeded',
      PARTIALLY_PAID: 'processing',
      PENDING: 'pending',
      ABANDONED: 'canceled',
      CANCELLED: 'canceled',
      REVERSED: 'canceled',
      FAILED: 'failed',
      EXPIRED: 'failed',
    });
  });

  it('maps every refund status', () => {
    expect(REFUND_STATUS).toEqual({
      IN_PROGRESS: 'pending',
      PENDING: 'pending',
      COMPLETED: 'succeeded',
      FAILED: 'failed',
    });
  });

  it('maps every mandate status', () => {
    expect(MANDATE_STATUS).toEqual({
      PENDING: 'pending',
      ACTIVE: 'active',
      ACTIVATED: 'active',
      FAILED: 'failed',
      CANCELLED: 'canceled',
      EXPIRED: 'expired',
    });
  });
});

describe('record helpers', () => {
  it('turns stored metadata values into strings and drops empty ones', () => {
    expect(stringMetadata({ orderId: 1001, gift: true, note: 'x', none: null })).toEqual({
      orderId: '1001',
      gift: 'true',
      note: 'x',
    });
  });

  it('removes the apiKey echoed by init-transaction from raw', () => {
    expect(withoutCredentials({ apiKey: 'k', checkoutUrl: 'u' })).toEqual({ checkoutUrl: 'u' });
  });
});
