/**
 * The transfer routes of the Provider T simulator (docs/providers/provider-t.md#transfer, docs/providers/provider-t.md#status): each validates the wire request, asks the books for the change and shapes the reply.
 */
import { randomUUID } from 'node:crypto';
import { minorDigits, toMajorUnits, toMinorUnits } from '@pay/core/adapter';
import {
  amounts,
  COMPLIANCE_FIELDS,
  CORRIDORS,
  identityError,
  type Json,
  json,
  missingFields,
  money,
  notFound,
  PROOF_OF_FUNDS_THRESHOLD,
  providerDate,
  providerError,
  QUOTE_LOCK_MS,
  RECEIVER_FIELDS,
  type Reply,
  SENDER_FIELDS,
  SERVICE_OPTIONS,
} from './replies.js';
import type { SimulatorContext } from './state.js';
import type { SimulatedTransfer } from './types.js';

/** `POST /transfer/v1/transactions/quote`: reserves a transaction id, fees and FX locked for 30 minutes. */
export function quote({ books, agentPartnerId }: SimulatorContext, body: Json): Reply {
  const invalid = identityError(body, true, agentPartnerId);
  if (invalid) return invalid;
  const sendAmount = body.sendAmount as { value?: unknown; currencyCode?: unknown } | undefined;
  const destination = body.destinationCountryCode;
  const offending = [
    ...(typeof destination === 'string' && /^[A-Z]{3}$/.test(destination) ? [] : ['destinationCountryCode']),
    ...(typeof sendAmount?.value === 'number' && sendAmount.value > 0 ? [] : ['sendAmount.value']),
    ...(typeof sendAmount?.currencyCode === 'string' && /^[A-Z]{3}$/.test(sendAmount.currencyCode)
      ? []
      : ['sendAmount.currencyCode']),
  ];
  if (offending.length > 0)
    return providerError(400, 'INVALID_REQUEST', 'The quote request is invalid', offending);
  const currency = sendAmount?.currencyCode as string;
  const value = sendAmount?.value as number;
  const serviceOptionCode = typeof body.serviceOptionCode === 'string' ? body.serviceOptionCode : 'WILL_CALL';
  const serviceOptionName = SERVICE_OPTIONS.get(serviceOptionCode);
  if (serviceOptionName === undefined) {
    return providerError(400, 'INVALID_SERVICE_OPTION', 'The service option is not offered', [
      'serviceOptionCode',
    ]);
  }
  let sendMinor: number;
  try {
    sendMinor = toMinorUnits(value, currency);
  } catch {
    return providerError(400, 'INVALID_AMOUNT', 'The amount has too many decimals', ['sendAmount.value']);
  }
  const corridor = CORRIDORS.get(destination as string) ?? { currency, fxRate: 1 };
  const receiveCurrency =
    typeof body.receiveCurrencyCode === 'string' ? body.receiveCurrencyCode : corridor.currency;
  const fxRate = receiveCurrency === currency ? 1 : corridor.fxRate;
  // Fee: 2.99 plus 1% of the amount, in minor units (never float arithmetic on the amount itself).
  const feeMinor = Math.round(2.99 * 10 ** minorDigits(currency)) + Math.round(sendMinor / 100);
  const receiveMinor = Math.round(
    (sendMinor / 10 ** minorDigits(currency)) * fxRate * 10 ** minorDigits(receiveCurrency),
  );
  const transfer: SimulatedTransfer = {
    transactionId: randomUUID(),
    status: 'QUOTED',
    committed: false,
    destinationCountryCode: destination as string,
    serviceOptionCode,
    sendAmount: money(value, currency),
    fees: money(toMajorUnits(feeMinor, currency), currency),
    receiveAmount: {
      value: toMajorUnits(receiveMinor, receiveCurrency),
      currencyCode: receiveCurrency,
      fxRate,
    },
    quotedAt: books.now(),
    lockExpiresAt: books.now() + QUOTE_LOCK_MS,
    sender: undefined,
    receiver: undefined,
    additionalDetails: undefined,
    referenceNumber: undefined,
    expectedPayoutDate: undefined,
    committedAt: undefined,
  };
  books.addQuote(transfer);
  return json(200, {
    transactions: [
      {
        transactionId: transfer.transactionId,
        serviceOptionCode,
        serviceOptionName,
        estimatedDelivery: 'A Few Minutes',
        ...amounts(transfer),
      },
    ],
  });
}

/**
 * The transfer an update or a commit acts on, or the provider's refusal in the order it checks: an unknown
 * transaction (400/697), a caller who is not its partner, a transfer already committed.
 */
function uncommittedTransfer(
  context: SimulatorContext,
  transactionId: string,
  body: Json,
): SimulatedTransfer | Reply {
  const transfer = context.books.transfers.get(transactionId);
  if (!transfer) return notFound();
  const invalid = identityError(body, true, context.agentPartnerId);
  if (invalid) return invalid;
  if (transfer.committed)
    return providerError(400, 'TRANSACTION_ALREADY_COMMITTED', 'The transaction is already committed');
  return transfer;
}

/** `PUT /transfer/v1/transactions/{id}`: sender, receiver and compliance data; `readyForCommit` when complete. */
export function update(context: SimulatorContext, transactionId: string, body: Json): Reply {
  const { books } = context;
  const transfer = uncommittedTransfer(context, transactionId, body);
  if ('body' in transfer) return transfer; // a refusal
  if (transfer.lockExpiresAt <= books.now())
    return providerError(400, 'QUOTE_EXPIRED', 'The quote has expired; request a new quote');
  const sendAmount = body.sendAmount as { value?: unknown; currencyCode?: unknown } | undefined;
  if (
    sendAmount?.value !== transfer.sendAmount.value ||
    sendAmount?.currencyCode !== transfer.sendAmount.currencyCode ||
    body.serviceOptionCode !== transfer.serviceOptionCode
  ) {
    return providerError(400, 'QUOTE_MISMATCH', 'The amount or service option differs from the quote', [
      'sendAmount',
      'serviceOptionCode',
    ]);
  }
  const compliance = [
    ...COMPLIANCE_FIELDS,
    ...(transfer.sendAmount.value >= PROOF_OF_FUNDS_THRESHOLD ? ['proofOfFundsCode'] : []),
  ];
  const offending = [
    ...missingFields(body.sender, SENDER_FIELDS, 'sender'),
    ...missingFields(body.receiver, RECEIVER_FIELDS, 'receiver'),
    ...missingFields(body.transactionInformation, compliance, 'transactionInformation'),
  ];
  if (offending.length > 0) {
    return providerError(
      400,
      'MISSING_REQUIRED_FIELDS',
      'Sender, receiver or compliance data is incomplete',
      offending,
    );
  }
  transfer.sender = body.sender as Json;
  transfer.receiver = body.receiver as SimulatedTransfer['receiver'];
  transfer.additionalDetails = body.additionalDetails as Record<string, string> | undefined;
  transfer.status = 'READY';
  return json(200, {
    readyForCommit: true,
    transactionId,
    serviceOptionCode: transfer.serviceOptionCode,
    serviceOptionName: SERVICE_OPTIONS.get(transfer.serviceOptionCode),
    ...amounts(transfer),
    preCommitReceipt: { consumerHyperLink: `${context.baseUrl()}/receipts/pre-${transactionId}` },
    ...(transfer.additionalDetails ? { additionalDetails: transfer.additionalDetails } : {}),
  });
}

/** `PUT /transfer/v1/transactions/{id}/commit`: the money moves; the reply carries the 5-minute receipt link. */
export function commit(
  context: SimulatorContext,
  transactionId: string,
  body: Json,
  requestId: string,
): Reply {
  const { books } = context;
  const transfer = uncommittedTransfer(context, transactionId, body);
  if ('body' in transfer) return transfer; // a refusal
  if (transfer.status !== 'READY')
    return providerError(400, 'TRANSACTION_NOT_READY', 'Update the transaction before committing it');
  if (transfer.lockExpiresAt <= books.now())
    return providerError(400, 'QUOTE_EXPIRED', 'The quote has expired; request a new quote');
  const token = books.commitTransfer(transfer, requestId);
  return json(200, {
    referenceNumber: transfer.referenceNumber,
    expectedPayoutDate: transfer.expectedPayoutDate,
    commitReceipt: { consumerHyperLink: `${context.baseUrl()}/receipts/${token}` },
  });
}

/** `GET /status/v1/transactions/{id}`: the committed transfer as the status endpoint shows it. */
export function status(context: SimulatorContext, transactionId: string, query: URLSearchParams): Reply {
  const invalid = identityError(query, false, context.agentPartnerId);
  if (invalid) return invalid;
  const transfer = context.books.committedTransfer(transactionId);
  if (!transfer) return notFound();
  return json(200, statusReply(transfer, context.books.now()));
}

/** The status read's body of a committed transfer (also what the receipt page shows). */
export function statusReply(transfer: SimulatedTransfer, now: number): Json {
  const { sendAmount, receiveAmount } = amounts(transfer);
  return {
    transactionId: transfer.transactionId,
    referenceNumber: transfer.referenceNumber,
    transactionSendDateTime: providerDate(transfer.committedAt ?? now),
    expectedPayoutDate: transfer.expectedPayoutDate,
    transactionStatus: transfer.status,
    transactionSubStatus: [],
    originatingCountryCode: 'USA',
    destinationCountryCode: transfer.destinationCountryCode,
    serviceOptionCode: transfer.serviceOptionCode,
    serviceOptionName: SERVICE_OPTIONS.get(transfer.serviceOptionCode),
    sendAmount: { amount: sendAmount.amount, fees: sendAmount.fees, total: sendAmount.total },
    receiveAmount,
    sender: { name: (transfer.sender as { name?: unknown } | undefined)?.name },
    receiver: { name: transfer.receiver?.name },
    ...(transfer.additionalDetails ? { additionalDetails: transfer.additionalDetails } : {}),
  };
}
