/**
 * The receiver-name amendment (docs/architecture.md#operations, docs/providers/provider-t.md#receiver-name-amendment):
 * read the amend id, patch the name with the part not given taken from the current receiver name, then re-read
 * the status. With no name given, only the re-read happens.
 */
import type { CallOptions } from '@pay/core/adapter';
import type { AmendPlan } from '../checks.js';
import type { ProviderTClient } from '../client.js';
import { type Replied, readBody } from '../envelope.js';
import { amendNameRequest, amendReadRequest } from '../requests.js';
import { amendReadSchema, amendReplySchema, type StatusReply } from '../wire.js';
import { findTransaction, stepRefused, unknownTransaction, unreadable } from './status.js';

/** Amends the receiver name when a part is given, then returns the transaction's current status. */
export async function amendReceiverName(
  client: ProviderTClient,
  transactionId: string,
  plan: AmendPlan,
  options: CallOptions,
): Promise<Replied<StatusReply>> {
  if (plan.firstName !== undefined || plan.lastName !== undefined) {
    const readCall = amendReadRequest(transactionId, plan, {
      context: { transactionId, step: 'amend_read' },
    });
    const read = await client.send(readCall, options);
    if (!read.ok) {
      throw read.error.withDetails({ message: unreadable(transactionId, 'amendment', read) });
    }
    const amend = readBody(amendReadSchema, read.body, readCall);
    if (amend.amendable === false) {
      throw stepRefused(
        'NOT_AMENDABLE',
        `Provider T no longer allows the receiver name of transfer ${transactionId} to be amended (for example after payout).`,
        { transactionId, step: 'amend_read' },
      );
    }
    // First and last name are both required by the provider: a part not given keeps its current value.
    const current = amend.receiver.name;
    const name = {
      firstName: plan.firstName ?? current.firstName,
      middleName: current.middleName,
      lastName: plan.lastName ?? current.lastName,
      secondLastName: current.secondLastName,
    };
    const patch = amendNameRequest(transactionId, plan, amend.amendId, name, {
      context: { transactionId, step: 'amend' },
    });
    const result = await client.request(amendReplySchema, patch, options);
    if (result.amendSuccess !== true) {
      throw stepRefused(
        'AMEND_FAILED',
        `Provider T did not confirm the receiver-name amendment of transfer ${transactionId} (amendSuccess is not true). Call retrievePayment('${transactionId}') to see the current name.`,
        { transactionId, step: 'amend' },
      );
    }
  }
  const status = await findTransaction(client, transactionId, options, { identity: plan.identity });
  if (!status) throw unknownTransaction(transactionId, 'status');
  return status;
}
