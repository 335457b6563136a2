/**
 * The routes that act on a committed transfer in the Provider T simulator: the receiver-name amendment (docs/providers/provider-t.md#receiver-name-amendment) and the refund (docs/providers/provider-t.md#refunds), each a read then a write that must
 * name what the read handed out.
 */
import { toMajorUnits, toMinorUnits } from '@pay/core/adapter';
import {
  amounts,
  digits,
  FINAL_STATUSES,
  identityError,
  type Json,
  json,
  missingFields,
  money,
  notFound,
  providerError,
  RECEIVER_FIELDS,
  REFUND_REASON_CODES,
  type Reply,
} from './replies.js';
import type { SimulatorContext } from './state.js';

/** `GET /amend/v1/transactions/{id}`: hands out the `amendId` the name change must carry. */
export function amendRead(context: SimulatorContext, transactionId: string, query: URLSearchParams): Reply {
  const invalid = identityError(query, false, context.agentPartnerId);
  if (invalid) return invalid;
  const transfer = context.books.committedTransfer(transactionId);
  if (!transfer) return notFound();
  const amendId = `amd-${digits(6)}`;
  context.books.amendIds.set(transactionId, amendId);
  return json(200, {
    amendId,
    transactionId,
    amendable: !FINAL_STATUSES.has(transfer.status),
    receiver: { name: transfer.receiver?.name },
  });
}

/** `PATCH /amend/v1/transactions/{id}/receiver/name`: first and last name required, with the read's amendId. */
export function amendName(context: SimulatorContext, transactionId: string, body: Json): Reply {
  const { books } = context;
  const invalid = identityError(body, false, context.agentPartnerId);
  if (invalid) return invalid;
  const transfer = books.committedTransfer(transactionId);
  if (!transfer) return notFound();
  if (body.amendId === undefined || body.amendId !== books.amendIds.get(transactionId)) {
    return providerError(
      400,
      'INVALID_AMEND_ID',
      'Read the amendment first; the amendId is unknown or stale',
      ['amendId'],
    );
  }
  if (FINAL_STATUSES.has(transfer.status))
    return providerError(400, 'NOT_AMENDABLE', 'The transaction can no longer be amended');
  const offending = missingFields(
    body.name,
    RECEIVER_FIELDS.map((field) => field.slice('name.'.length)),
    'name',
  );
  if (offending.length > 0)
    return providerError(400, 'MISSING_REQUIRED_FIELDS', 'First and last name are required', offending);
  books.amendReceiverName(transfer, body.name as Record<string, string | undefined>);
  return json(200, { amendSuccess: true });
}

/** `GET /refund/v2/transactions/{id}`: the refundable amount and the `refundId` the commit must carry. */
export function refundRead(context: SimulatorContext, transactionId: string, query: URLSearchParams): Reply {
  const { books } = context;
  const invalid = identityError(query, false, context.agentPartnerId);
  if (invalid) return invalid;
  const reason = query.get('refundReasonCode');
  if (!reason || !REFUND_REASON_CODES.has(reason)) {
    return providerError(400, 'INVALID_REFUND_REASON', 'refundReasonCode is missing or unknown', [
      'refundReasonCode',
    ]);
  }
  const transfer = books.committedTransfer(transactionId);
  if (!transfer) return notFound();
  const refundFee = query.get('refundFee') === 'true';
  const refundId = `rfd-${digits(8)}`;
  books.refundReads.set(transactionId, { refundId, refundReasonCode: reason, refundFee });
  const { currencyCode } = transfer.sendAmount;
  const fees = refundFee ? transfer.fees : money(0, currencyCode);
  const totalMinor =
    toMinorUnits(transfer.sendAmount.value, currencyCode) + toMinorUnits(fees.value, currencyCode);
  return json(200, {
    transactionId,
    refundId,
    transactionStatus: transfer.status,
    availableForRefund: books.refundable(transfer),
    sendAmount: amounts(transfer).sendAmount,
    refundAmount: {
      amount: transfer.sendAmount,
      fees,
      total: money(toMajorUnits(totalMinor, currencyCode), currencyCode),
    },
  });
}

/** `PUT /refund/v2/transactions/{id}/commit`: the whole send amount goes back; the transfer is `REFUNDED`. */
export function refundCommit(
  context: SimulatorContext,
  transactionId: string,
  body: Json,
  requestId: string,
): Reply {
  const { books } = context;
  const invalid = identityError(body, false, context.agentPartnerId);
  if (invalid) return invalid;
  const transfer = books.committedTransfer(transactionId);
  if (!transfer) return notFound();
  if (
    books.refunds.some(
      (refund) => refund.transactionId === transactionId && refund.refundId === body.refundId,
    )
  ) {
    // A second commit of a committed refund with a new request id (docs/providers/provider-t.md#refunds, as for transfers).
    return providerError(400, 'TRANSACTION_ALREADY_COMMITTED', 'The refund is already committed');
  }
  const read = books.refundReads.get(transactionId);
  if (!read || body.refundId !== read.refundId) {
    return providerError(
      400,
      'INVALID_REFUND_ID',
      'Read the refund first; the refundId is unknown or stale',
      ['refundId'],
    );
  }
  if (!books.refundable(transfer))
    return providerError(400, 'NOT_AVAILABLE_FOR_REFUND', 'The transaction cannot be refunded');
  books.commitRefund(transfer, read, requestId);
  return json(200, {
    referenceNumber: transfer.referenceNumber,
    expectedPayoutDate: new Date(books.now()).toISOString().slice(0, 10),
    commitReceipt: { hyperlink: `${context.baseUrl()}/receipts/refund-${read.refundId}` },
  });
}
