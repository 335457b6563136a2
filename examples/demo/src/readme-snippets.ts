/**
 * The root README's TypeScript snippets (quick start, per-call options, the test adapter, error handling),
 * compiled by `pnpm test` (the demo package's typecheck) so the documentation cannot drift from the API. Not run
 * by the demo.
 */
import {
  createMemoryDeduplicationStore,
  createPay,
  NetworkError,
  type Payment,
  type PaymentCreateParams,
  ProviderApiError,
  type Refund,
  ValidationError,
} from '@pay/core';
import { createTestAdapter } from '@pay/core/testing';
import { providerN } from '@pay/provider-n';
import { type ProviderTTransferMetadata, providerT } from '@pay/provider-t';

/** README "Quick start". */
export async function quickStart(): Promise<string> {
  // Reads PROVIDER_N_API_KEY, PROVIDER_N_SECRET_KEY, PROVIDER_N_SANDBOX and PROVIDER_N_CONTRACT_CODE
  // (your merchant contract code: the live API requires it on every payment).
  const pay = createPay(providerN());

  const checkout = await pay.checkouts.create({
    customer: { email: 'ada@example.com' },
    item_id: 'plan-basic',
    session_type: 'one_time',
    quantity: 1,
    success_url: 'https://shop.example/thanks',
    provider_metadata: { amount: 5000, currency: 'NGN' },
  });
  return checkout.checkoutUrl;
}

/** README "Errors": branching on the error classes. */
export async function errorHandling(transfer: PaymentCreateParams<ProviderTTransferMetadata>) {
  const pay = createPay(providerT());
  try {
    return await pay.payments.create(transfer);
  } catch (error) {
    if (ValidationError.isInstance(error)) return error.issues; // nothing was sent
    if (
      (NetworkError.isInstance(error) || ProviderApiError.isInstance(error)) &&
      error.outcome === 'unknown'
    ) {
      // The provider may have processed it. Do not send again: reconcile first.
      const transactionId = error.context?.transactionId;
      const found = typeof transactionId === 'string' ? await pay.payments.retrieve(transactionId) : null;
      if (found) return found; // it landed: this is the payment (check found.status)
      throw error; // not found or no id yet: keep the order pending and reconcile later (webhook, error.requestId)
    }
    if (NetworkError.isInstance(error) && error.outcome === 'not_sent') {
      // Provably never reached the provider (connection refused, aborted before sending): safe to send again.
    }
    if (ProviderApiError.isInstance(error)) console.error(error.providerCode, error.requestId, error.context);
    throw error;
  }
}

/** README "Quick start": per-call options. */
export async function perCallOptions(id: string) {
  const pay = createPay(providerN());
  return pay.payments.retrieve(id, { timeoutMs: 5_000, retry: 0 });
}

/** README "Local development": the in-memory test adapter for unit tests that need no server. */
export function testAdapterSetup() {
  const kit = createTestAdapter();
  const pay = createPay(kit.adapter);
  const handler = pay.webhooks.setup({
    webhookSecret: kit.webhookSecret,
    deduplicate: createMemoryDeduplicationStore(),
  });
  return { pay, handler };
}

/** README "Webhooks": Provider N's events, counting test payments outside production only. */
export function webhooksExample(shop: {
  markPaid(id: string, amountPaid: number | null): Promise<void>;
  releaseOrder(id: string): Promise<void>;
  recordRefund(refund: Refund): Promise<void>;
}) {
  const pay = createPay(providerN());
  // Real money only in production. `pay dev` and every sandbox configuration produce test records
  // (`livemode: false`), so in development they count too; a production deployment never takes one for a payment.
  const countsAsPaid = (payment: Payment) =>
    payment.status === 'succeeded' && (payment.livemode || process.env.NODE_ENV !== 'production');

  return pay.webhooks
    .setup({
      webhookSecret: process.env.PROVIDER_N_SECRET_KEY,
      deduplicate: createMemoryDeduplicationStore(),
    })
    .on(['payment.created', 'payment.updated'], async (event) => {
      if (countsAsPaid(event.data)) await shop.markPaid(event.data.id, event.data.amount_paid);
    })
    .on('payment.failed', async (event) => {
      if (event.data.status === 'failed') await shop.releaseOrder(event.data.id);
    })
    .on('refund.created', async (event) => {
      if (event.data.status === 'succeeded') await shop.recordRefund(event.data);
    });
}

/** README "Webhooks" and the Provider N README "Rotating credentials": both keys for the overlap. */
export function rotatingCredentials(apiKey: string, newSecretKey: string, oldSecretKey: string) {
  const pay = createPay(providerN());
  pay.adapter.updateCredentials({ apiKey, secretKey: newSecretKey });
  return pay.webhooks.setup({ webhookSecret: [newSecretKey, oldSecretKey] });
}
