/**
 * The wire request of every call (docs/providers/provider-t.md#transfer and the sections after it), built from the
 * plans of `checks.ts`. Each names the call without any id or value (`call`), and says whether a repeat is safe.
 */
import { type ErrorContext, path } from '@pay/core/adapter';
import { type AmendPlan, identityOf, type RefundPlan, type TransferPlan } from './checks.js';
import type { ProviderTIdentity } from './config.js';
import type { ProviderCall } from './envelope.js';

/** Where a call is made from: a request id derived from an idempotency key, the context. */
type CallSettings = { requestId?: string | undefined; context: ErrorContext };

/** The quote a transfer continues with: its transaction id and the service option the update must repeat. */
export interface QuotedTransfer {
  transactionId: string;
  serviceOptionCode: string | undefined;
  serviceOptionRoutingCode: string | undefined;
}

/** The members the quote and the update both send, in this order, with the service option given. */
function transferBody(plan: TransferPlan, option: Partial<QuotedTransfer>) {
  // Not `{ ...identity, more }`: on Node 20 each member a literal adds after a spread costs ≈ 0.5 µs.
  return Object.assign({}, plan.identity, {
    destinationCountryCode: plan.destinationCountryCode,
    destinationCountrySubdivisionCode: plan.metadata.destinationCountrySubdivisionCode,
    serviceOptionCode: option.serviceOptionCode,
    serviceOptionRoutingCode: option.serviceOptionRoutingCode,
    sendAmount: { value: plan.amount, currencyCode: plan.currency },
    receiveCurrencyCode: plan.metadata.receiveCurrencyCode,
  });
}

/** Transfer step 1, the quote: reserves a transaction id. Never retried (a repeat would reserve another). */
export function quoteRequest(plan: TransferPlan, call: CallSettings): ProviderCall {
  return {
    call: 'POST /transfer/v1/transactions/quote',
    method: 'POST',
    path: '/transfer/v1/transactions/quote',
    json: transferBody(plan, plan.metadata),
    retrySafe: false,
    ...call,
  };
}

/** Transfer step 2, the update: sender, receiver and compliance data. Retried with the same request id. */
export function updateRequest(plan: TransferPlan, quote: QuotedTransfer, call: CallSettings): ProviderCall {
  const { metadata, additionalDetails } = plan;
  const json = transferBody(plan, quote);
  return {
    call: 'PUT /transfer/v1/transactions/{transactionId}',
    method: 'PUT',
    path: path`/transfer/v1/transactions/${quote.transactionId}`,
    json: Object.assign(json, {
      sender: metadata.sender,
      receiver: metadata.receiver,
      transactionInformation: metadata.transactionInformation,
      fundingSource: metadata.fundingSource,
      targetAccountProfileId: metadata.targetAccountProfileId,
      targetAccount: metadata.targetAccount,
      partnerTransactionId: metadata.partnerTransactionId,
      additionalDetails: Object.keys(additionalDetails).length > 0 ? additionalDetails : undefined,
    }),
    retrySafe: true,
    ...call,
  };
}

/** Transfer step 3, the commit: moves the money. Retried with the same request id, processed once. */
export function commitRequest(plan: TransferPlan, transactionId: string, call: CallSettings): ProviderCall {
  return {
    call: 'PUT /transfer/v1/transactions/{transactionId}/commit',
    method: 'PUT',
    path: path`/transfer/v1/transactions/${transactionId}/commit`,
    json: Object.assign({}, plan.identity, { fundingSource: plan.metadata.fundingSource }),
    retrySafe: true,
    // Retry-safe only because the provider replays a repeated request id; it moves money all the same.
    movesMoney: true,
    ...call,
  };
}

/** The status read (docs/providers/provider-t.md#status): identity fields, without operator or point of sale, in the query. */
export function statusRequest(
  transactionId: string,
  identity: ProviderTIdentity,
  call: CallSettings,
): ProviderCall {
  return {
    call: 'GET /status/v1/transactions/{transactionId}',
    method: 'GET',
    path: path`/status/v1/transactions/${transactionId}`,
    query: identityOf(identity),
    retrySafe: true,
    ...call,
  };
}

/** Amendment step 1: the amend id and the current receiver name. */
export function amendReadRequest(transactionId: string, plan: AmendPlan, call: CallSettings): ProviderCall {
  return {
    call: 'GET /amend/v1/transactions/{transactionId}',
    method: 'GET',
    path: path`/amend/v1/transactions/${transactionId}`,
    query: plan.identity,
    retrySafe: true,
    ...call,
  };
}

/** Amendment step 2: the new name (first and last are required by the provider). */
export function amendNameRequest(
  transactionId: string,
  plan: AmendPlan,
  amendId: string,
  name: Record<string, string | undefined>,
  call: CallSettings,
): ProviderCall {
  return {
    call: 'PATCH /amend/v1/transactions/{transactionId}/receiver/name',
    method: 'PATCH',
    path: path`/amend/v1/transactions/${transactionId}/receiver/name`,
    json: { ...plan.identity, amendId, name },
    // Setting the same name twice changes nothing and moves no money; the provider replays by request id.
    retrySafe: true,
    ...call,
  };
}

/** Refund step 1: the refund id and the refundable amount. */
export function refundReadRequest(plan: RefundPlan, call: CallSettings): ProviderCall {
  return {
    call: 'GET /refund/v2/transactions/{transactionId}',
    method: 'GET',
    path: path`/refund/v2/transactions/${plan.transactionId}`,
    query: { ...plan.identity, refundReasonCode: plan.refundReasonCode, refundFee: plan.refundFee },
    retrySafe: true,
    ...call,
  };
}

/** Refund step 2: moves the money back. Retried with the same request id, processed once. */
export function refundCommitRequest(plan: RefundPlan, refundId: string, call: CallSettings): ProviderCall {
  return {
    call: 'PUT /refund/v2/transactions/{transactionId}/commit',
    method: 'PUT',
    path: path`/refund/v2/transactions/${plan.transactionId}/commit`,
    json: { ...plan.identity, refundId },
    retrySafe: true,
    movesMoney: true,
    ...call,
  };
}
