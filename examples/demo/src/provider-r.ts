/** Provider R: a payment (redirect URL), paid in the simulator, the push confirmed into events, a refund. */
import { createPay, type PayEvent, WebhookVerificationError } from '@pay/core';
import { createProviderR } from '@pay/provider-r';
import { startProviderRSimulator } from '@pay/provider-r/testing';
import { expectError, expectThat, section, step } from './transcript.js';
import { startWebhookEndpoint } from './webhook-endpoint.js';

export async function providerRDemo(): Promise<void> {
  section('Provider R: redirect gateway (amounts in minor units: 10000 = 100.00 CZK)');
  const simulator = await startProviderRSimulator();
  const { merchant, secret } = simulator.credentials;
  const pay = createPay(createProviderR({ merchant, secret, isSandbox: true, baseUrl: simulator.url }));

  const received: PayEvent[] = [];
  const handler = pay.webhooks
    .setup({ webhookSecret: secret })
    .on(['payment.succeeded', 'invoice.generated', 'providerR.PAID'], (event) => void received.push(event));
  const endpoint = await startWebhookEndpoint(handler as never);
  try {
    const payment = await pay.payments.create({
      amount: 25000,
      currency: 'czk',
      customer: { id: 'customer-42' },
      item_id: 'order-1001',
      provider_metadata: { email: 'payer@example.com', paymentLabel: 'Order 1001' },
    });
    step('payments.create → the payer is sent to the redirect URL', {
      id: payment.id,
      status: payment.status,
      payment_url: payment.payment_url,
    });
    expectThat(
      payment.status === 'pending' && payment.payment_url !== null,
      'a pending payment with a redirect URL',
    );

    simulator.pay(payment.id);
    step('the payer pays on the hosted page (simulator control)');

    const status = await simulator.deliverWebhook(endpoint.url, { transId: payment.id });
    step('the provider pushes PAID; the handler confirms it with the status call', {
      reply: status,
      events: received.map((event) => event.type),
    });
    expectThat(status === 200, 'the webhook endpoint answers 200');
    expectThat(
      received.map((event) => event.type).join() === 'payment.succeeded,invoice.generated,providerR.PAID',
      'payment.succeeded, invoice.generated and providerR.PAID, in that order',
    );

    const retrieved = await pay.payments.retrieve(payment.id);
    step('payments.retrieve', {
      status: retrieved?.status,
      amount: retrieved?.amount,
      currency: retrieved?.currency,
    });
    expectThat(retrieved?.status === 'succeeded', 'the payment reads as succeeded');

    const refund = await pay.refunds.create({
      payment_id: payment.id,
      amount: 5000,
      reason: 'one item returned',
    });
    step('refunds.create (partial, 50.00 CZK)', {
      id: refund.id,
      amount: refund.amount,
      status: refund.status,
    });
    expectThat(
      refund.status === 'succeeded' && simulator.refundable(payment.id) === 20000,
      '200.00 CZK left to refund',
    );

    const forged = await simulator.deliverWebhook(endpoint.url, {
      transId: payment.id,
      secret: 'guessed-secret',
    });
    step('deliberate failure: a push with a forged secret', { reply: forged });
    expectThat(forged === 400, 'the forged push is refused with 400');
    const error = await expectError(
      () =>
        handler.handle({
          body: `merchant=${merchant}&secret=guessed-secret&transId=${payment.id}&status=PAID`,
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
