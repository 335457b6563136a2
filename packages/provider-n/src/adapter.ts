/**
 * The Provider N adapter (docs/providers/provider-n.md#calls). A caller's idempotency key becomes the call's
 * paymentReference / refundReference (docs/architecture.md#idempotency): the provider refuses a reused reference,
 * and that refusal is resolved to what the key already opened.
 */
import {
  type CallOptions,
  defineAdapter,
  keyedReference,
  type ResolvedRecord,
  type ResolveLookup,
} from '@pay/core/adapter';
import { createClient } from './client.js';
import { PROVIDER, type ProviderNConfig, type ProviderNCredentials } from './config.js';
import { type ProviderNCalls, providerNCalls } from './flows/calls.js';
import { checkoutRecoveryPoint, createCheckout } from './flows/checkout.js';
import { createRefund } from './flows/refund.js';
import { toCheckoutOfStatus, toPayment, transactionStatus } from './mapping.js';
import { initTransactionRequest, refundRequest } from './requests.js';
import type { ProviderNAdapter, ProviderNTypes } from './types.js';
import { createWebhooks } from './webhooks.js';
import { DEFAULT_CURRENCY } from './wire.js';

/** Builds the adapter over one authenticated client. No I/O until the first operation. */
export function createProviderNAdapter(config: ProviderNConfig): ProviderNAdapter {
  const client = createClient(config);
  // Provider N payloads carry no test flag: a sandbox adapter's records are test records.
  const livemode = !config.isSandbox;
  const calls = providerNCalls(client, livemode);
  const { facts, queryTransaction } = calls;

  const adapter = defineAdapter<ProviderNTypes>({
    provider: PROVIDER,
    // The adapter contract this release is built for (docs/architecture.md#adapter-contract-version).
    contract: 1,
    // Every check before the idempotency ledger is touched; the currency as sent (`ngn` → `NGN`) is fingerprinted
    // (docs/architecture.md#idempotency).
    checks: {
      createCheckout(params) {
        const { currencyCode } = initTransactionRequest(params, config.contractCode);
        return { ...params, provider_metadata: { ...params.provider_metadata, currency: currencyCode } };
      },
      createRefund(params) {
        const { currency } = refundRequest(params);
        const given = params.provider_metadata;
        return given?.currency === undefined
          ? undefined
          : { ...params, provider_metadata: { ...given, currency } };
      },
    },
    operations: {
      createCheckout: (params, options) => createCheckout(calls, config.contractCode, params, options),
      retrieveCheckout: async (id, options) => {
        const read = await queryTransaction({ transactionReference: id }, options);
        return read && toCheckoutOfStatus(read.body, facts(read.requestId), read.raw);
      },
      retrievePayment: async (id, options) => {
        const read = await queryTransaction({ transactionReference: id }, options);
        return (
          read &&
          toPayment(read.body, { ...facts(read.requestId), status: transactionStatus(read.body) }, read.raw)
        );
      },
      createRefund: (params, options) => createRefund(calls, params, options),
    },
    unsupported: {
      'payments.create': 'Provider N takes payments only through its hosted checkout: use checkouts.create',
      'customers.create': 'the adapter does not manage Provider N customers (spec: not supported)',
      'subscriptions.create':
        'Provider N subscriptions are mandates set up by the payer (spec: not supported)',
    },
    fallbackReason: 'the Provider N API has no such call',
    webhooks: createWebhooks({ livemode }),
    // The reconciler delivers what the webhooks raise (docs/providers/provider-n.md#events): a received payment is
    // `payment.created`; nothing while a payment is pending.
    reconcile: {
      retrieveRefund: async (id, options) => {
        const read = await calls.readRefund(id, options ?? {});
        return read && calls.refundRecord(read, DEFAULT_CURRENCY);
      },
      events: {
        'payment.pending': null,
        'payment.requires_action': null,
        'payment.processing': 'payment.created',
        'payment.succeeded': 'payment.created',
      },
    },
    resolve: (lookup, options) => resolve(calls, lookup, options),
  });
  // `Object.assign` keeps the adapter itself, with core's non-enumerable mark that it runs the ledger on validated
  // input (a spread copy would lose it).
  return Object.assign(adapter, {
    updateCredentials: (credentials: ProviderNCredentials) => client.updateCredentials(credentials),
  });
}

/**
 * `pay.resolve` (docs/architecture.md#createpay): reads a checkout or refund by the reference its idempotency key
 * maps to, else the one an `'unknown'` error names. `null` only on the provider's not-found answers; `undefined`
 * with nothing to look up by. A failed read throws.
 */
async function resolve(
  calls: ProviderNCalls,
  lookup: ResolveLookup,
  options: CallOptions,
): Promise<ResolvedRecord> {
  const reference = async (member: string) => (await keyedReference(lookup)) ?? contextString(lookup, member);
  if (lookup.operation === 'checkouts.create') {
    const paymentReference = await reference('paymentReference');
    const transactionReference = contextString(lookup, 'transactionReference');
    const by = paymentReference ? { paymentReference } : transactionReference && { transactionReference };
    if (!by) return undefined;
    const read = await calls.queryTransaction(by, options);
    if (!read) return null;
    const checkout = toCheckoutOfStatus(read.body, calls.facts(read.requestId), read.raw);
    const recorded = checkoutRecoveryPoint(lookup.recoveryPoint);
    // With the URL the ledger kept, the record is the one checkouts.create returned (checkoutUrl included).
    if (recorded?.transactionReference !== checkout.id) return checkout;
    const { checkoutUrl, expiresAt } = recorded;
    return Object.assign(checkout, { payment_url: checkoutUrl, expires_at: expiresAt, checkoutUrl });
  }
  if (lookup.operation === 'refunds.create') {
    const refundReference = await reference('refundReference');
    if (!refundReference) return undefined;
    const read = await calls.readRefund(refundReference, options);
    // Neither the refund read nor its request carries a currency (docs/providers/provider-n.md#refunds).
    return read && calls.refundRecord(read, DEFAULT_CURRENCY);
  }
  return undefined;
}

/** A non-empty string member of the error context a lookup carries. */
function contextString({ context }: ResolveLookup, member: string): string | undefined {
  const value = context && Object.hasOwn(context, member) ? context[member] : undefined;
  return typeof value === 'string' && value !== '' ? value : undefined;
}
