import { describe, expect, it } from 'vitest';
import { invoiceFromStatus, PAYMENT_STATUS, paymentFromStatus, STATUS_EVENTS } from '../src/mapping.js';
import { PROVIDER_R_STATUSES, type ProviderRStatusReply } from '../src/wire.js';

const reply: ProviderRStatusReply = {
  code: 0,
  message: 'OK',
  transId: 'AB12-CD34-EF56',
  status: 'PAID',
  price: 10000,
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

  it('identify the payer by payerId, else by e-mail, else not at all', () => {
    expect(paymentFromStatus({ ...reply, payerId: 'cust_42' }).customer).toEqual({ id: 'cust_42' });
    expect(paymentFromStatus(reply).customer).toEqual({ email: 'payer@example.com' });
    expect(paymentFromStatus({ ...reply, email: undefined }).customer).toBeNull();
  });

  it('build the invoice of a paid transaction from the confirmed reply', () => {
    const confirmedAt = Date.UTC(2026, 0, 2, 3, 4, 5);
    expect(invoiceFromStatus(reply, confirmedAt)).toEqual({
      provider: 'providerR',
      id: reply.transId,
      payment_id: reply.transId,
      amount_paid: 10000,
      currency: 'CZK',
      status: 'paid',
      paid_at: '2026-01-02T03:04:05.000Z',
      customer: { email: 'payer@example.com' },
      metadata: { refId: 'order-1001', label: 'Order from Eshop' },
      raw: reply,
    });
  });
});
