/**
 * Provider R: a checkout redirect, paid by the payer on the simulator's hosted page, the push forwarded to the
 * app and confirmed into events, a partial refund, and a forged push refused.
 */
import { createPay, type PayEvent, WebhookVerificationError } from '@pay/core';
import { createProviderR } from '@pay/provider-r';
import { actOnHostedPage, forwardTo, startLikePayDev } from './local-loop.js';
import { expectError, expectThat, section, step } from './transcript.js';

export async function providerRDemo(): Promise<void> {
  section('Provider R: redirect gateway (amounts in the standard unit: 250.50 CZK)');
  const simulator = await startLikePayDev('provider-r');
  const pay = createPay(createProviderR(simulator.adapterConfig()));

  const received: PayEvent[] = [];
  const handler = pay.webhooks
    .setup({ webhookSecret: simulator.credentials.secret })
    .on(['payment.succeeded', 'invoice.generated', 'providerR.PAID'], (event) => void received.push(event));
  const endpoint = await forwardTo(simulator, handler as never);
  try {
    const checkout = await pay.adapter.createCheckoutRedirect({
      customer: { email: 'payer@example.com' },
      item_id: 'order-1001',
      amount: 250.5,
      currency: 'CZK',
      success_url: 'https://shop.example/paid',
      cancel_url: 'https://shop.example/cancelled',
    });
    const price = simulator.transaction(checkout.transId)?.price;
    step('createCheckoutRedirect → the payer is sent to the redirect URL', {
      transId: checkout.transId,
      redirectUrl: checkout.redirectUrl,
      'price on the wire': price,
    });
    expectThat(price === 25050, '250.5 CZK is sent as price 25050 (minor units on the wire)');

    const visit = await actOnHostedPage(checkout.redirectUrl, 'pay');
    const events = received.map((event) => event.type);
    step('the payer opens the redirect URL and presses Pay (GET the page, POST its form)', {
      page: visit.heading,
      buttons: visit.buttons,
      answer: `${visit.status} → ${visit.location}`,
      'the app received': events,
    });
    expectThat(
      visit.status === 303 && visit.location === 'https://shop.example/paid',
      'the page sends the payer back to success_url with 303',
    );
    expectThat(
      events.join() === 'payment.succeeded,invoice.generated,providerR.PAID',
      'the forwarded push, confirmed by the status call: payment.succeeded, invoice.generated, providerR.PAID',
    );
    const succeeded = received[0]?.data as { amount?: number; request_id?: string | null } | undefined;
    expectThat(
      succeeded?.amount === 250.5 && typeof succeeded.request_id === 'string',
      'payment.succeeded carries 250.5 and the request id of the status call that confirmed it',
    );

    const retrieved = await pay.payments.retrieve(checkout.transId);
    step('payments.retrieve', {
      status: retrieved?.status,
      amount: retrieved?.amount,
      amount_paid: retrieved?.amount_paid,
      currency: retrieved?.currency,
      request_id: retrieved?.request_id,
    });
    expectThat(
      retrieved?.status === 'succeeded' && retrieved.amount === 250.5 && retrieved.amount_paid === 250.5,
      'a succeeded payment of 250.5 CZK, paid in full',
    );
    expectThat(typeof retrieved?.request_id === 'string', 'the record quotes the request id for support');

    const refund = await pay.refunds.create({
      payment_id: checkout.transId,
      amount: 50,
      reason: 'one item returned',
    });
    step('refunds.create (partial, 50.00 CZK)', {
      id: refund.id,
      amount: refund.amount,
      status: refund.status,
      'left to refund (minor units, books)': simulator.refundable(checkout.transId),
    });
    expectThat(
      refund.status === 'succeeded' &&
        refund.amount === 50 &&
        simulator.refundable(checkout.transId) === 20050,
      '200.50 CZK left to refund',
    );

    const forged = await simulator.deliverWebhook(endpoint.url, {
      transId: checkout.transId,
      secret: 'guessed-secret',
    });
    step('deliberate failure: a push with a forged secret', { reply: forged });
    expectThat(forged === 400, 'the forged push is refused with 400');
    const { merchant } = simulator.credentials;
    const error = await expectError(
      () =>
        handler.handle({
          body: `merchant=${merchant}&secret=guessed-secret&transId=${checkout.transId}&status=PAID`,
          headersAsObject: { 'content-type': 'application/x-www-form-urlencoded' },
          fullUrl: endpoint.url,
        }),
      'webhook_verification_failed',
    );
    step('  …caught as the typed error a user would branch on', {
      class: WebhookVerificationError.isInstance(error) ? 'WebhookVerificationError' : 'other',
      reason: error.reason,
    });
  } finally {
    await endpoint.close();
    await simulator.close();
  }
}
