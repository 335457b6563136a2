/**
 * Provider N: a checkout paid by the payer on its checkoutUrl page, the signed webhook forwarded to the app, a
 * partial refund completed by the provider (the event `pay trigger` sends), and a mandate update.
 */
import { createPay, type PayEvent, ProviderNotSupportedError } from '@pay/core';
import { createProviderN } from '@pay/provider-n';
import { actOnHostedPage, forwardTo, startLikePayDev } from './local-loop.js';
import { expectError, expectThat, section, step } from './transcript.js';

export async function providerNDemo(): Promise<void> {
  section('Provider N: token-authenticated gateway (amounts in the standard unit: 5000.00 NGN)');
  const simulator = await startLikePayDev('provider-n');
  const pay = createPay(createProviderN(simulator.adapterConfig()));

  const received: PayEvent[] = [];
  const handler = pay.webhooks
    .setup({ webhookSecret: simulator.credentials.webhookSecret })
    .on(['payment.created', 'refund.created', 'subscription.created'], (event) => void received.push(event));
  const endpoint = await forwardTo(simulator, handler as never);
  try {
    const checkout = await pay.checkouts.create({
      customer: { email: 'ada@example.com' },
      item_id: 'plan-basic',
      session_type: 'one_time',
      quantity: 1,
      success_url: 'https://shop.example/thanks',
      provider_metadata: { amount: 5000, currency: 'ngn' },
    });
    step('checkouts.create → the payer opens checkoutUrl', {
      id: checkout.id,
      checkoutUrl: checkout.checkoutUrl,
      request_id: checkout.request_id,
    });
    expectThat(
      checkout.checkoutUrl === checkout.payment_url &&
        checkout.currency === 'NGN' &&
        checkout.amount === 5000,
      'a 5000 NGN checkout whose checkoutUrl is the payment URL',
    );

    const visit = await actOnHostedPage(checkout.checkoutUrl, 'pay');
    step('the payer presses Pay on the checkout page (GET the page, POST its form)', {
      page: visit.heading,
      buttons: visit.buttons,
      answer: `${visit.status} → ${visit.location}`,
      'the app received': received.map((event) => event.type),
    });
    expectThat(visit.status === 303, 'the page sends the payer back with 303');
    expectThat(
      visit.location?.startsWith('https://shop.example/thanks') === true,
      'the payer lands on success_url',
    );
    const created = received.filter((event) => event.type === 'payment.created');
    expectThat(
      created.length === 1 && (created[0]?.data as { status?: string } | undefined)?.status === 'succeeded',
      'the forwarded SUCCESSFUL_TRANSACTION (HMAC-SHA512) dispatched payment.created once, succeeded',
    );

    const retrieved = await pay.payments.retrieve(checkout.id);
    step('payments.retrieve (transaction reference)', {
      status: retrieved?.status,
      amount: retrieved?.amount,
      amount_paid: retrieved?.amount_paid,
      request_id: retrieved?.request_id,
    });
    expectThat(
      retrieved?.status === 'succeeded' && retrieved.amount === 5000 && retrieved.amount_paid === 5000,
      'a succeeded payment of 5000 NGN, paid in full',
    );

    const refund = await pay.refunds.create({
      payment_id: checkout.id,
      amount: 1500.5,
      reason: 'partial return',
    });
    step('refunds.create (partial, 1500.50 NGN)', {
      id: refund.id,
      amount: refund.amount,
      status: refund.status,
    });
    expectThat(refund.amount === 1500.5, 'the refund is 1500.5 NGN');
    // The provider completes a refund on its own schedule; the simulator completes it, then sends the event
    // `pay trigger provider-n SUCCESSFUL_REFUND` sends, to the forwarding URL.
    simulator.completeRefund(refund.id, { status: 'COMPLETED' });
    const triggered = await simulator.trigger('SUCCESSFUL_REFUND', { refundReference: refund.id });
    const refundEvent = received.find((event) => event.type === 'refund.created');
    step('the provider completes the refund: SUCCESSFUL_REFUND → refund.created', {
      reply: triggered.status,
      status: (refundEvent?.data as { status?: string })?.status,
      amount: (refundEvent?.data as { amount?: number })?.amount,
    });
    expectThat(
      triggered.status === 200 &&
        (refundEvent?.data as { status?: string })?.status === 'succeeded' &&
        (refundEvent?.data as { amount?: number })?.amount === 1500.5,
      'refund.created with status succeeded and 1500.5 NGN',
    );

    const mandate = {
      mandateCode: 'MTDD|20261122|0001',
      mandateStatus: 'ACTIVE',
      customerEmail: 'ada@example.com',
      mandateAmount: 2500,
      startDate: '2026-11-22',
      endDate: '2027-11-22',
    };
    const mandateReply = await simulator.deliverWebhook(endpoint.url, {
      eventType: 'MANDATE_UPDATE',
      eventData: mandate,
    });
    const subscription = received.find((event) => event.type === 'subscription.created');
    step('the provider pushes MANDATE_UPDATE (ACTIVE) → subscription.created', {
      reply: mandateReply,
      id: (subscription?.data as { id?: string })?.id,
    });
    expectThat(mandateReply === 200 && subscription !== undefined, 'subscription.created dispatched');

    expectThat(!pay.supports('payments.create'), 'pay.supports says Provider N offers no payments.create');
    const error = await expectError(
      () =>
        (pay.payments as unknown as { create(params: unknown): Promise<unknown> }).create({ amount: 100 }),
      'provider_not_supported',
    );
    step('deliberate failure: payments.create is not offered by Provider N (a compile error in typed code)', {
      class: ProviderNotSupportedError.isInstance(error) ? 'ProviderNotSupportedError' : 'other',
      reason: error.reason,
    });
  } finally {
    await endpoint.close();
    await simulator.close();
  }
}
