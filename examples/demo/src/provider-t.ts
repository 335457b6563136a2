/**
 * Provider T: a transfer as a checkout (receipt link), a receiver-name amendment, the status webhook, a refund,
 * and a forged webhook refused.
 */
import { createPay, type PayEvent, ProviderNotSupportedError } from '@pay/core';
import { createProviderT } from '@pay/provider-t';
import { generateProviderTKeyPair, startProviderTSimulator } from '@pay/provider-t/testing';
import { expectError, expectThat, section, step } from './transcript.js';
import { startWebhookEndpoint } from './webhook-endpoint.js';

const sender = {
  name: { firstName: 'Maria', lastName: 'Lopez' },
  address: { line1: '100 Main St', city: 'Dallas', countryCode: 'USA' },
  mobilePhone: { number: '2145550123', countryDialCode: '1' },
  personalDetails: { dateOfBirth: '1985-04-12' },
  primaryIdentification: { typeCode: 'PAS', id: 'X1234567', issueCountryCode: 'USA' },
};
const receiver = {
  name: { firstName: 'Jose', lastName: 'Lopez' },
  address: { line1: 'Calle 5 de Mayo 12', city: 'Guadalajara', countryCode: 'MEX' },
};

export async function providerTDemo(): Promise<void> {
  section('Provider T: money-transfer network (amounts in major units: 250.50 USD)');
  const simulator = await startProviderTSimulator();
  const pay = createPay(createProviderT({ ...simulator.adapterConfig, retry: 1 }));

  const received: PayEvent[] = [];
  const handler = pay.webhooks
    .setup({ webhookSecret: null })
    .on(
      ['payment.updated', 'refund.created', 'providerT.TRANSACTION_STATUS_EVENT'],
      (event) => void received.push(event),
    );
  const endpoint = await startWebhookEndpoint(handler as never);
  try {
    const checkout = await pay.checkouts.create({
      item_id: 'remittance',
      provider_metadata: {
        sender,
        receiver,
        transactionInformation: { purposeOfTransactionCode: 'FAMILY_SUPPORT', sourceOfFundsCode: 'SALARY' },
        amount: 250.5,
        currency: 'usd',
      },
    });
    step('checkouts.create: quote → update → commit in one call; the money has moved', {
      transactionId: checkout.id,
      amount: `${checkout.amount} ${checkout.currency}`,
      receipt: checkout.payment_url,
      expires_at: checkout.expires_at,
    });
    expectThat(
      simulator.quotes === 1 && simulator.committedTransfers === 1,
      'one quote and one committed transfer',
    );

    const amended = await pay.checkouts.update(checkout.id, {
      provider_metadata: { receiverFirstName: 'José' },
    });
    const receiverName = simulator.transfer(checkout.id)?.receiver?.name;
    step('checkouts.update: the receiver name corrected to match their ID (the last name is kept)', {
      transactionId: amended.id,
      receiver: `${receiverName?.firstName} ${receiverName?.lastName}`,
    });
    expectThat(
      receiverName?.firstName === 'José' && receiverName.lastName === 'Lopez',
      'the receiver is now José Lopez',
    );

    simulator.setStatus(checkout.id, 'AVAILABLE');
    const status = await simulator.deliverWebhook(endpoint.url, { transactionId: checkout.id });
    step(
      'the provider signs a status event (RSA-SHA256); the handler verifies it and re-reads the transfer',
      {
        reply: status,
        events: received.map((event) => event.type),
      },
    );
    expectThat(
      status === 200 && received[0]?.type === 'payment.updated',
      'payment.updated then the raw providerT event',
    );

    const refund = await pay.refunds.create({ payment_id: checkout.id, reason: 'sent by mistake' });
    step('refunds.create: the whole transfer is refunded', {
      id: refund.id,
      amount: refund.amount,
      status: refund.status,
    });
    expectThat(refund.status === 'succeeded' && simulator.refunds.length === 1, 'one committed refund');

    const forger = generateProviderTKeyPair();
    const forged = await simulator.deliverWebhook(endpoint.url, {
      transactionId: checkout.id,
      privateKey: forger.privateKey,
    });
    step('deliberate failure: a status event signed with another key', { reply: forged });
    expectThat(forged === 400, 'the forged event is refused with 400');

    const error = await expectError(() => pay.payments.cancel(checkout.id), 'provider_not_supported');
    step('  …and cancelling a committed transfer is refused before any call', {
      class: ProviderNotSupportedError.isInstance(error) ? 'ProviderNotSupportedError' : 'other',
      reason: error.reason,
    });
  } finally {
    await endpoint.close();
    await simulator.close();
  }
}
