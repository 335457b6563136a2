/**
 * Provider T: a transfer as a checkout (receipt link), a receiver-name amendment, the receiver collecting on the
 * receipt page with the signed status webhook forwarded to the app, a refund, and a forged webhook refused.
 */
import {
  createMemoryIdempotencyStore,
  createPay,
  NetworkError,
  type PayEvent,
  ProviderNotSupportedError,
} from '@pay/core';
import { createProviderT } from '@pay/provider-t';
import { generateProviderTKeyPair, type ProviderTSimulator } from '@pay/provider-t/testing';
import { actOnHostedPage, forwardTo, startLikePayDev } from './local-loop.js';
import { expectError, expectThat, section, step } from './transcript.js';

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
  section('Provider T: money-transfer network (amounts in the standard unit: 250.50 USD)');
  const simulator = await startLikePayDev('provider-t');
  const pay = createPay(createProviderT(simulator.adapterConfig({ retry: 1 })));

  const received: PayEvent[] = [];
  const handler = pay.webhooks
    .setup({ webhookSecret: null })
    .on(
      ['payment.updated', 'refund.created', 'providerT.TRANSACTION_STATUS_EVENT'],
      (event) => void received.push(event),
    );
  const endpoint = await forwardTo(simulator, handler as never);
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

    const mistaken = await idempotentRetryAfterCrash(simulator);

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

    const ofTransfer = () => received.filter((event) => (event.data as { id?: string }).id === checkout.id);
    const before = ofTransfer().length;
    const visit = await actOnHostedPage(checkout.payment_url ?? '', 'pay');
    const pushed = ofTransfer().slice(before);
    step(
      'the receiver collects on the receipt page (GET it, POST its Pay form); the simulator signs the status event (RSA-SHA256), the app verifies it and re-reads the transfer',
      {
        page: visit.heading,
        buttons: visit.buttons,
        answer: `${visit.status} → ${visit.location}`,
        'the app received': pushed.map(
          (event) => `${event.type}:${(event.data as { status?: string }).status}`,
        ),
      },
    );
    expectThat(
      visit.status === 303 && visit.location === checkout.payment_url,
      'the page answers 303 back to the receipt',
    );
    expectThat(
      pushed.length === 1 &&
        pushed[0]?.type === 'payment.updated' &&
        (pushed[0].data as { status?: string }).status === 'succeeded',
      'one forwarded webhook: payment.updated, succeeded (RECEIVED)',
    );
    expectThat(
      received.some((event) => event.type === 'providerT.TRANSACTION_STATUS_EVENT'),
      'and the raw providerT event',
    );

    // The collected transfer is paid out and can no longer be refunded; order A-2002's transfer was sent by
    // mistake and is not collected yet.
    const refund = await pay.refunds.create({ payment_id: mistaken, reason: 'sent by mistake' });
    step('refunds.create: the transfer of order A-2002 (not collected yet) is refunded whole', {
      id: refund.id,
      amount: refund.amount,
      status: refund.status,
    });
    expectThat(
      refund.status === 'succeeded' && refund.amount === 40 && simulator.refunds.length === 1,
      'one committed refund of 40 USD',
    );

    const forger = generateProviderTKeyPair();
    const forged = await simulator.deliverWebhook(endpoint.url, {
      transactionId: checkout.id,
      privateKey: forger.privateKey,
    });
    step('deliberate failure: a status event signed with another key', { reply: forged });
    expectThat(forged === 400, 'the forged event is refused with 400');

    // payments.cancel is not an operation of Provider T: a compile error in typed code, refused at run time.
    expectThat(!pay.supports('payments.cancel'), 'pay.supports says Provider T cannot cancel');
    const error = await expectError(
      () => (pay.payments as unknown as { cancel(id: string): Promise<unknown> }).cancel(checkout.id),
      'provider_not_supported',
    );
    step('  …and cancelling a committed transfer is refused before any call', {
      class: ProviderNotSupportedError.isInstance(error) ? 'ProviderNotSupportedError' : 'other',
      reason: error.reason,
    });
  } finally {
    await endpoint.close();
    await simulator.close();
  }
}

/**
 * A transfer whose commit landed but whose reply never came back (the process died waiting), retried by
 * another instance with the same idempotency key over the same ledger (here one in-memory store stands for the
 * shared PostgreSQL or Redis one): the retry reads the transfer instead of quoting again, and money moves once
 * (docs/architecture.md#idempotency). Resolves with the transfer's id.
 */
async function idempotentRetryAfterCrash(simulator: ProviderTSimulator): Promise<string> {
  const ledger = createMemoryIdempotencyStore();
  const params = {
    amount: 40,
    currency: 'USD',
    metadata: { orderId: 'A-2002' },
    provider_metadata: {
      sender,
      receiver,
      transactionInformation: { purposeOfTransactionCode: 'FAMILY_SUPPORT', sourceOfFundsCode: 'SALARY' },
    },
  };
  const committedBefore = simulator.committedTransfers;
  simulator.faults.inject({ method: 'PUT', path: /\/commit$/, fault: { kind: 'drop-after' } });
  const crashed = createPay(createProviderT(simulator.adapterConfig({ retry: 0 })), {
    idempotency: ledger,
  });
  const lost = await crashed.payments
    .create(params, { idempotencyKey: 'order-A-2002' })
    .catch((error) => error);
  step(
    'payments.create with idempotencyKey: the commit lands but its reply is lost (the instance dies here)',
    {
      error: NetworkError.isInstance(lost) ? `NetworkError outcome=${lost.outcome}` : String(lost),
      context: (lost as { context?: unknown }).context,
    },
  );
  const restarted = createPay(createProviderT(simulator.adapterConfig({ retry: 0 })), {
    idempotency: ledger,
  });
  const payment = await restarted.payments.create(params, { idempotencyKey: 'order-A-2002' });
  step('  …another instance retries with the same key: it reads the transfer and returns it', {
    id: payment.id,
    status: payment.status,
    committedTransfers: simulator.committedTransfers - committedBefore,
  });
  expectThat(
    NetworkError.isInstance(lost) &&
      lost.outcome === 'unknown' &&
      payment.status === 'succeeded' &&
      simulator.committedTransfers - committedBefore === 1,
    'the lost commit is recovered by the retry and the money moved once',
  );
  return payment.id;
}
