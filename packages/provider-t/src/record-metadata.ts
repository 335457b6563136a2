/**
 * The metadata strings of Provider T's records (docs/architecture.md#records): the caller's metadata (sent as
 * `additionalDetails`), then the provider's facts the record has no field for.
 */
import { decimalText } from '@pay/core/adapter';
import type { TransferPlan } from './checks.js';
import type { CommitReply, StatusReply, UpdateReply } from './wire.js';

const decimal = (value: number | undefined) => (value === undefined ? undefined : decimalText(value));

/** Sets each string member of `facts` on `metadata` in place (one object per record, no copy per group of facts). */
export function withFacts(
  metadata: Record<string, string>,
  facts: Record<string, unknown>,
): Record<string, string> {
  for (const key in facts) {
    const value = facts[key];
    if (typeof value === 'string') metadata[key] = value;
  }
  return metadata;
}

/** Adds fees, totals and FX of a transfer as strings (the record has no fields for them). */
function withAmountFacts(
  metadata: Record<string, string>,
  { sendAmount, receiveAmount }: Pick<UpdateReply, 'sendAmount' | 'receiveAmount'>,
): Record<string, string> {
  return withFacts(metadata, {
    fees: decimal(sendAmount.fees?.value),
    total: decimal(sendAmount.total?.value),
    receiveAmount: decimal(receiveAmount?.amount?.value),
    receiveCurrency: receiveAmount?.amount?.currencyCode,
    fxRate: decimal(receiveAmount?.fxRate),
  });
}

/** Metadata of a committed transfer: the caller's metadata, then the provider's facts about it. */
export function transferMetadata(plan: TransferPlan, update: UpdateReply, commit: CommitReply) {
  const metadata = withFacts(
    { ...plan.additionalDetails },
    {
      referenceNumber: commit.referenceNumber,
      expectedPayoutDate: commit.expectedPayoutDate,
      serviceOptionCode: update.serviceOptionCode,
      serviceOptionName: update.serviceOptionName,
      receiptUrl: commit.commitReceipt?.consumerHyperLink,
    },
  );
  return withAmountFacts(metadata, update);
}

/**
 * Metadata of a status read: `details` (by default the transfer's string-valued `additionalDetails`, where the
 * caller's metadata round-trips), then the provider's facts.
 */
export function statusMetadata(
  status: StatusReply,
  details = withFacts({}, status.additionalDetails ?? {}),
): Record<string, string> {
  withFacts(details, {
    transactionStatus: status.transactionStatus,
    referenceNumber: status.referenceNumber,
    expectedPayoutDate: status.expectedPayoutDate,
    destinationCountryCode: status.destinationCountryCode,
    serviceOptionCode: status.serviceOptionCode,
  });
  return withAmountFacts(details, status);
}
