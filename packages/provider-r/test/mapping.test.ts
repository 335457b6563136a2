import { describe, expect, it } from 'vitest';
import { PAYMENT_STATUS, STATUS_EVENTS, toInvoice, toPayment } from '../src/mapping.js';
import { PROVIDER_R_STATUSES, type ProviderRStatusReply } from '../src/wire.js';

const reply: ProviderRStatusReply = {
  code: 0,
  message: 'OK',
  transId: 'AB12-CD34-EF56',
  status: 'PAID',
  price: 10050,
  curr: 'CZK',
  label: 'Order from Eshop',
  refId: 'order-1001',
  email: 'payer@example.com',
};

describe('mapping tables', () => {
  it('cover every provider status with a payment status and at least one event', () => {
    for (const status of PROVIDER_R_STATUSES) {
      expect(PAYMENT_STATUS[status]).toBeTypeOf('string');
      expect(STATUS_EVENTS[status].length).toBeGreaterThan(0);
    }
  });

  it.each([
    ['PENDING', 'pending', 0],
    ['PAID', 'succeeded', 100.5],
    ['AUTHORIZED', 'requires_capture', 0],
    ['CANCELLED', 'canceled', 0],
  ] as const)(
    'read the documented %s as %s (docs/providers/provider-r.md#status)',
    (status, expected, paid) => {
      expect(toPayment({ ...reply, status }, true, null)).toMatchObject({
        status: expected,
        amount_paid: paid,
      });
    },
  );

  it.each(['REFUNDED', 'CHARGEBACK', 'PARTIALLY_PAID'])(
    'read an undocumented %s as neither paid nor final: processing, amount paid unknown',
    (status) => {
      expect(toPayment({ ...reply, status }, true, null)).toMatchObject({
        status: 'processing',
        amount_paid: null,
      });
    },
  );

  it('identify the payer by payerId, else by e-mail, else not at all', () => {
    expect(toPayment({ ...reply, payerId: 'cust_42' }, true, null).customer).toEqual({
      id: 'cust_42',
    });
    expect(toPayment(reply, true, null).customer).toEqual({ email: 'payer@example.com' });
    expect(toPayment({ ...reply, email: undefined }, true, null).customer).toBeNull();
  });

  it('read every table through own entries: a status named like an Object.prototype member is unknown', () => {
    for (const odd of ['constructor', '__proto__', 'toString', 'CONSTRUCTOR']) {
      const payment = toPayment({ ...reply, status: odd }, true, null);
      expect(payment).toMatchObject({ status: 'processing', amount_paid: null, requires_action: false });
    }
  });

  it('convert the wire price (minor units) to the standard unit exactly: 10050 is 100.50 CZK', () => {
    expect(toPayment(reply, true, null)).toMatchObject({ amount: 100.5, amount_paid: 100.5 });
    // 0.07 * 100 is 7.000000000000001 in floats: the conversion moves the decimal point in the text instead.
    expect(toPayment({ ...reply, price: 7 }, true, null).amount).toBe(0.07);
    expect(toPayment({ ...reply, price: 123456789012345 }, true, null).amount).toBe(1234567890123.45);
  });

  it('say what was paid: the price once PAID, nothing before or after cancelling', () => {
    expect(toPayment(reply, true, null).amount_paid).toBe(100.5);
    for (const status of ['PENDING', 'AUTHORIZED', 'CANCELLED'])
      expect(toPayment({ ...reply, status }, true, null).amount_paid).toBe(0);
  });

  it('take livemode from the reply, and from the configured mode only when the reply has no test flag', () => {
    expect(toPayment({ ...reply, test: true }, false, null).livemode).toBe(false);
    expect(toPayment({ ...reply, test: false }, true, null).livemode).toBe(true);
    expect(toPayment(reply, false, null).livemode).toBe(true);
  });

  it('build the invoice of a paid transaction from the confirmed reply', () => {
    const confirmedAt = Date.UTC(2026, 0, 2, 3, 4, 5);
    expect(toInvoice(reply, confirmedAt, true, 'req-1')).toEqual({
      provider: 'providerR',
      id: reply.transId,
      payment_id: reply.transId,
      amount_paid: 100.5,
      currency: 'CZK',
      status: 'paid',
      paid_at: '2026-01-02T03:04:05.000Z',
      customer: { email: 'payer@example.com' },
      metadata: { refId: 'order-1001', label: 'Order from Eshop' },
      // The reply carries no `test` flag: the configured mode (sandbox here) decides.
      livemode: false,
      request_id: 'req-1',
      raw: reply,
    });
  });
});
