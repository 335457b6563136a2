/**
 * The metadata strings of Provider T's records (docs/architecture.md#records): the caller's metadata (sent as
 * `additionalDetails`), then the provider's facts the record has no field for: references, payout date, service
 * option, fees, totals and FX.
 */
import { decimalText } from '@pay/core/adapter';
import type { TransferPlan } from './checks.js';
import type { CommitReply, StatusReply, UpdateReply, WireMoney } from './wire.js';

type Breakdown = {
  amount: WireMoney;
  fees?: { value?: number | undefined };
  total?: { value?: number | undefined };
};
type Receive = {
  amount?: { value?: number | undefined; currencyCode?: string | undefined };
  fxRate?: number | undefined;
};

/** Fees, totals and FX of a transfer as metadata strings (the record has no fields for them). */
function amountFacts(send: Breakdown, receive: Receive | undefined): Record<string, string> {
  return compact({
    fees: send.fees?.value === undefined ? undefined : decimalText(send.fees.value),
    total: send.total?.value === undefined ? undefined : decimalText(send.total.value),
    receiveAmount: receive?.amount?.value === undefined ? undefined : decimalText(receive.amount.value),
    receiveCurrency: receive?.amount?.currencyCode,
    fxRate: receive?.fxRate === undefined ? undefined : decimalText(receive.fxRate),
  });
}

/** The members that have a value. */
export function compact(values: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

/** String-valued `additionalDetails` (the caller's metadata round-trips through them). */
function detailsOf(details: Record<string, unknown> | undefined): Record<string, string> {
  return Object.fromEntries(
    Object.entries(details ?? {}).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

/** Metadata of a committed transfer: the caller's metadata, then the provider's facts about it. */
export function transferMetadata(
  plan: TransferPlan,
  update: UpdateReply,
  commit: CommitReply,
): Record<string, string> {
  return {
    ...plan.additionalDetails,
    ...compact({
      referenceNumber: commit.referenceNumber,
      expectedPayoutDate: commit.expectedPayoutDate,
      serviceOptionCode: update.serviceOptionCode,
      serviceOptionName: update.serviceOptionName,
      receiptUrl: commit.commitReceipt?.consumerHyperLink,
    }),
    ...amountFacts(update.sendAmount, update.receiveAmount),
  };
}

/** Metadata of a status read: the transfer's `additionalDetails`, then the provider's facts. */
export function statusMetadata(status: StatusReply): Record<string, string> {
  return { ...detailsOf(status.additionalDetails), ...statusFacts(status) };
}

/** The provider's facts of a status read, as metadata strings. */
export function statusFacts(status: StatusReply): Record<string, string> {
  return {
    ...compact({
      transactionStatus: status.transactionStatus,
      referenceNumber: status.referenceNumber,
      expectedPayoutDate: status.expectedPayoutDate,
      destinationCountryCode: status.destinationCountryCode,
      serviceOptionCode: status.serviceOptionCode,
    }),
    ...amountFacts(status.sendAmount, status.receiveAmount),
  };
}
