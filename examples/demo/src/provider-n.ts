/** Provider N: a checkout (checkoutUrl), completed in the simulator, the signed webhook, a partial refund, a mandate. */
import { createPay, type PayEvent, ProviderNotSupportedError } from '@pay/core';
import { createProviderN } from '@pay/provider-n';
import { startProviderNSimulator } from '@pay/provider-n/testing';
import { expectError, expectThat, section, step } from './transcript.js';
import { startWebhookEndpoint } from './webhook-endpoint.js';

export async function providerNDemo(): Promise<void> {
  section('Provider N: token-authenticated gateway (amounts in major units: 5000.00 NGN)');
  const simulator = await startProviderNSimulator();
  const { apiKey, secretKey, contractCode, webhookSecret } = simulator.credentials;
  const pay = createPay(
    createProviderN({ apiKey, secretKey, contractCode, isSandbox: true, baseUrl: simulator.url }),
  );

  const received: PayEvent[] = [];
  const handler = pay.webhooks
    .setup({ webhookSecret })
    .on(['payment.created', 'refund.created', 'subscription.created'], (event) => void received.push(event));
  const endpoint = await startWebhookEndpoint(handler as never);
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
      expires_at: checkout.expires_at,
    });
    expectThat(
      checkout.checkoutUrl === checkout.payment_url && checkout.currency === 'NGN',
      'checkoutUrl is the payment URL, currency NGN',
    );

    const paid = simulator.complete(checkout.id, { status: 'PAID' });
    step('the payer pays (simulator control)');
    const status = await simulator.deliverWebhook(endpoint.url, {
      eventType: 'SUCCESSFUL_TRANSACTION',
      eventData: paid,
    });
    step('the provider sends SUCCESSFUL_TRANSACTION signed with HMAC-SHA512', {
      reply: status,
      events: received.map((event) => event.type),
    });
    expectThat(status === 200 && received[0]?.type === 'payment.created', 'payment.created dispatched once');

    const retrieved = await pay.payments.retrieve(checkout.id);
    step('payments.retrieve (transaction reference)', {
      status: retrieved?.status,
      amount: retrieved?.amount,
    });
    expectThat(
      retrieved?.status === 'succeeded' && retrieved.amount === 5000,
      'a succeeded payment of 5000 NGN',
    );

    const refund = await pay.refunds.create({
      payment_id: checkout.id,
      amount: 1500.5,
      reason: 'partial return',
    });
    step('refunds.create (partial, 1500.50 NGN)', { id: refund.id, status: refund.status });
    const refunded = simulator.completeRefund(refund.id, { status: 'COMPLETED' });
    await simulator.deliverWebhook(endpoint.url, { eventType: 'SUCCESSFUL_REFUND', eventData: refunded });
    const refundEvent = received.find((event) => event.type === 'refund.created');
    step('SUCCESSFUL_REFUND → refund.created', {
      status: (refundEvent?.data as { status?: string })?.status,
    });
    expectThat(
      (refundEvent?.data as { status?: string })?.status === 'succeeded',
      'refund.created with status succeeded',
    );

    const mandate = {
      mandateCode: 'MTDD|20261122|0001',
      mandateStatus: 'ACTIVE',
      customerEmail: 'ada@example.com',
      mandateAmount: 2500,
      startDate: '2026-11-22',
      endDate: '2027-11-22',
    };
    await simulator.deliverWebhook(endpoint.url, { eventType: 'MANDATE_UPDATE', eventData: mandate });
    const subscription = received.find((event) => event.type === 'subscription.created');
    step('MANDATE_UPDATE (ACTIVE) → subscription.created', {
      id: (subscription?.data as { id?: string })?.id,
    });
    expectThat(subscription !== undefined, 'subscription.created dispatched');

    const error = await expectError(
      () => pay.payments.create({ amount: 100, currency: 'NGN', provider_metadata: {} } as never),
      'provider_not_supported',
    );
    step('deliberate failure: payments.create is not offered by Provider N', {
      class: ProviderNotSupportedError.isInstance(error) ? 'ProviderNotSupportedError' : 'other',
      reason: error.reason,
    });
  } finally {
    await endpoint.close();
    await simulator.close();
  }
}
