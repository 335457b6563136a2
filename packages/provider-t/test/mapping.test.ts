import * as v from '@pay/core/schema';
import { describe, expect, it } from 'vitest';
import { PAYMENT_STATUS, STATUS_EVENTS } from '../src/index.js';
import { AMOUNT_PAID, statusPayment, statusRefund } from '../src/mapping.js';
import { statusReplySchema, TRANSACTION_STATUSES } from '../src/wire.js';
import { statusReply } from './fixtures.js';

describe('status table', () => {
  it.each([
    ['UNFUNDED', 'requires_action'],
    ['PROCESSING', 'processing'],
    ['SENT', 'succeeded'],
    ['AVAILABLE', 'succeeded'],
    ['IN TRANSIT', 'succeeded'],
    ['RECEIVED', 'succeeded'],
    ['DELIVERED', 'succeeded'],
    ['REJECTED', 'failed'],
    ['REFUNDED', 'canceled'],
    ['CLOSED', 'canceled'],
  ] as const)('maps %s to %s', (status, expected) => {
    expect(PAYMENT_STATUS[status]).toBe(expected);
    expect(statusPayment(v.parse(statusReplySchema, statusReply(status)), false).status).toBe(expected);
  });

  it.each([
    ['UNFUNDED', 0],
    ['PROCESSING', null],
    ['SENT', 100],
    ['DELIVERED', 100],
    ['REJECTED', null],
    ['REFUNDED', 100],
    ['CLOSED', null],
    ['SOMETHING_NEW', null],
  ] as const)('says what the sender has paid of a %s transfer: %s', (status, paid) => {
    expect(statusPayment(v.parse(statusReplySchema, statusReply(status)), true)).toMatchObject({
      amount: 100,
      amount_paid: paid,
      livemode: true,
    });
  });

  it('covers every transaction status in both tables', () => {
    expect(Object.keys(AMOUNT_PAID).sort()).toEqual([...TRANSACTION_STATUSES].sort());
    expect(Object.keys(PAYMENT_STATUS).sort()).toEqual([...TRANSACTION_STATUSES].sort());
    expect(Object.keys(STATUS_EVENTS).sort()).toEqual([...TRANSACTION_STATUSES].sort());
  });
});

describe('event table', () => {
  it.each([
    ['UNFUNDED', 'payment.created'],
    ['SENT', 'payment.succeeded'],
    ['AVAILABLE', 'payment.updated'],
    ['IN TRANSIT', 'payment.updated'],
    ['RECEIVED', 'payment.updated'],
    ['DELIVERED', 'payment.updated'],
    ['PROCESSING', 'payment.updated'],
    ['CLOSED', 'payment.updated'],
    ['REJECTED', 'payment.failed'],
    ['REFUNDED', 'refund.created'],
  ] as const)('raises %s as %s', (status, event) => {
    expect(STATUS_EVENTS[status]).toBe(event);
  });

  it('builds the refund of a REFUNDED transfer from the status read', () => {
    expect(statusRefund(v.parse(statusReplySchema, statusReply('REFUNDED')), true)).toMatchObject({
      livemode: true,
      id: `${statusReply().transactionId}:refund`,
      payment_id: statusReply().transactionId,
      amount: 100,
      currency: 'USD',
      status: 'succeeded',
    });
  });
});
