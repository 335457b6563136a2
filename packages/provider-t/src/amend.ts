/**
 * The receiver-name amendment (spec §4, wire contract "Receiver-name amendment"): read the amend id, patch
 * the name with the part not given taken from the current receiver name, then re-read the status. With no
 * name given, only the re-read happens.
 */
import { type CallOptions, ProviderApiError, path } from '@pay/core';
import type { ProviderTIdentity } from './config.js';
import { findTransaction, unknownTransaction, unreadable } from './status.js';
import { isSuccess, PROVIDER, type ProviderTCall, type ProviderTTransport } from './transport.js';
import { amendReadSchema, amendReplySchema, type StatusReply } from './wire.js';

/** The correction asked for: at least one part to amend, or none to only re-read. */
export interface NameCorrection {
  firstName?: string | undefined;
  lastName?: string | undefined;
}

/** Amends the receiver name when a part is given, then returns the transaction's current status. */
export async function amendReceiverName(
  transport: ProviderTTransport,
  transactionId: string,
  correction: NameCorrection,
  identity: ProviderTIdentity,
  options: CallOptions,
): Promise<StatusReply> {
  if (correction.firstName !== undefined || correction.lastName !== undefined) {
    await patchName(transport, transactionId, correction, identity, options);
  }
  const status = await findTransaction(transport, transactionId, {
    ...options,
    identity,
    context: { transactionId, step: 'status' },
  });
  if (!status) throw unknownTransaction(transactionId, 'status');
  return status;
}

async function patchName(
  transport: ProviderTTransport,
  transactionId: string,
  correction: NameCorrection,
  identity: ProviderTIdentity,
  options: CallOptions,
): Promise<void> {
  const readCall: ProviderTCall = {
    call: 'GET /amend/v1/transactions/{transactionId}',
    method: 'GET',
    path: path`/amend/v1/transactions/${transactionId}`,
    query: { ...identity },
    retrySafe: true,
    signal: options.signal,
    context: { transactionId, step: 'amend_read' },
  };
  const readReply = await transport.send(readCall);
  if (!isSuccess(readReply))
    throw transport.error(readReply, readCall, {
      message: (detail) => unreadable(transactionId, 'amendment', detail),
    });
  const amend = transport.read(readReply, readCall, amendReadSchema);
  if (amend.amendable === false) {
    throw new ProviderApiError(
      {
        provider: PROVIDER,
        status: 200,
        providerCode: 'NOT_AMENDABLE',
        message: `Provider T no longer allows the receiver name of transfer ${transactionId} to be amended (for example after payout).`,
        retryable: false,
      },
      { context: { transactionId, step: 'amend_read' } },
    );
  }
  // First and last name are both required by the provider: a part not given keeps its current value.
  const current = amend.receiver.name;
  const patchCall: ProviderTCall = {
    call: 'PATCH /amend/v1/transactions/{transactionId}/receiver/name',
    method: 'PATCH',
    path: path`/amend/v1/transactions/${transactionId}/receiver/name`,
    json: {
      ...identity,
      amendId: amend.amendId,
      name: {
        firstName: correction.firstName ?? current.firstName,
        middleName: current.middleName,
        lastName: correction.lastName ?? current.lastName,
        secondLastName: current.secondLastName,
      },
    },
    // Setting the same name twice changes nothing and moves no money; the provider replays by request id.
    retrySafe: true,
    signal: options.signal,
    context: { transactionId, step: 'amend' },
  };
  const result = await transport.request(patchCall, amendReplySchema);
  if (result.amendSuccess !== true) {
    throw new ProviderApiError(
      {
        provider: PROVIDER,
        status: 200,
        providerCode: 'AMEND_FAILED',
        message: `Provider T did not confirm the receiver-name amendment of transfer ${transactionId} (amendSuccess is not true). Call retrievePayment('${transactionId}') to see the current name.`,
        retryable: false,
      },
      { context: { transactionId, step: 'amend' } },
    );
  }
}
