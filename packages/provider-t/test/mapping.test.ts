import * as v from '@pay/core/schema';
import { describe, expect, it } from 'vitest';
import { PAYMENT_STATUS, STATUS_EVENTS } from '../src/index.js';
import { AMOUNT_PAID, toPayment, toRefund } from '../src/mapping.js';
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
    expect(
      toPayment(
        { status: v.parse(statusReplySchema, statusReply(status)) },
        { livemode: false, requestId: 'req-1' },
      ).status,
    ).toBe(expected);
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
    expect(
      toPayment(
        { status: v.parse(statusReplySchema, statusReply(status)) },
        { livemode: true, requestId: 'req-1' },
      ),
    ).toMatchObject({
      amount: 100,
      amount_paid: paid,
      livemode: true,
      request_id: 'req-1',
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
    expect(
      toRefund(
        { status: v.parse(statusReplySchema, statusReply('REFUNDED')) },
        { livemode: true, requestId: null },
      ),
    ).toMatchObject({
      livemode: true,
      request_id: null,
      id: `${statusReply().transactionId}:refund`,
      payment_id: statusReply().transactionId,
      amount: 100,
      currency: 'USD',
      status: 'succeeded',
    });
  });
});
