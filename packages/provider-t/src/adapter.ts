/**
 * The Provider T adapter (docs/architecture.md#behaviour): each operation checks its input completely
 * (`checks.ts`), then runs its flow or read through the client and maps the reply to a record (`mapping.ts`).
 */
import type { CallOptions, MayStillLand, ResolvedRecord, ResolveLookup } from '@pay/core/adapter';
import { defineAdapter, isRecord } from '@pay/core/adapter';
import { checkAmend, checkRefund, checkTransfer, type TransferPlan } from './checks.js';
import { createClient, type ProviderTClient } from './client.js';
import { PROVIDER, type ProviderTCredentials, type ResolvedConfig } from './config.js';
import { amendReceiverName } from './flows/amend.js';
import { refundTransfer } from './flows/refund.js';
import { findTransaction } from './flows/status.js';
import { sendTransfer } from './flows/transfer.js';
import { toCheckout, toPayment, toRefund } from './mapping.js';
import type { ProviderTAdapter, ProviderTTypes } from './types.js';
import { createWebhooks } from './webhooks.js';

/** Why each operation Provider T cannot perform is unsupported (docs/architecture.md#unsupported-operations). */
export const UNSUPPORTED_REASONS = {
  'checkouts.delete': 'a committed transfer cannot be deleted or voided',
  'payments.delete': 'a committed transfer cannot be deleted or voided',
  'payments.cancel': 'a committed transfer cannot be deleted or voided; refund it with refunds.create',
  'payments.capture': 'the provider has no manual capture: a transfer moves the money when it is committed',
  'customers.create':
    'the provider has no customer storage: pass full sender data in provider_metadata on every transfer',
  'customers.retrieve': 'the provider has no customer storage',
  'customers.update': 'the provider has no customer storage',
  'customers.delete': 'the provider has no customer storage',
  'subscriptions.create': 'the provider has no recurring transfers',
  'subscriptions.retrieve': 'the provider has no recurring transfers',
  'subscriptions.update': 'the provider has no recurring transfers',
  'subscriptions.cancel': 'the provider has no recurring transfers',
  'subscriptions.delete': 'the provider has no recurring transfers',
} as const;

/** Builds the adapter from a resolved config. No I/O until the first operation. */
export function createProviderTAdapter(config: ResolvedConfig): ProviderTAdapter {
  const client = createClient(config);
  const { livemode } = config;
  const factsOf = (reply: { requestId: string }) => ({ livemode, requestId: reply.requestId });
  // The plan `checks` built from the very parameters core then passes to the operation: a transfer is checked
  // once per call, before the idempotency ledger (docs/architecture.md#idempotency).
  const plans = new WeakMap<object, TransferPlan>();
  const adapter = defineAdapter<ProviderTTypes>({
    provider: PROVIDER,
    // The adapter contract this release is built for (docs/architecture.md#adapter-contract-version).
    contract: 1,
    operations: {
      async createPayment(params, options) {
        const plan = plans.get(params) ?? checkTransfer('payments.create', params, config);
        const transfer = await sendTransfer(client, plan, options);
        return toPayment({ transfer, plan }, factsOf(transfer));
      },
      async createCheckout(params, options) {
        const plan = plans.get(params) ?? checkTransfer('checkouts.create', params, config);
        const transfer = await sendTransfer(client, plan, options);
        return toCheckout({ transfer, plan }, factsOf(transfer));
      },
      async retrievePayment(id, options) {
        const read = await findTransaction(client, id, options);
        return read && toPayment({ status: read.body }, factsOf(read));
      },
      async retrieveCheckout(id, options) {
        const read = await findTransaction(client, id, options);
        return read && toCheckout({ status: read.body }, factsOf(read));
      },
      async updatePayment(id, params, options) {
        const plan = checkAmend('payments.update', params, config);
        const read = await amendReceiverName(client, id, plan, options);
        return toPayment({ status: read.body }, factsOf(read));
      },
      async updateCheckout(id, params, options) {
        const plan = checkAmend('checkouts.update', params, config);
        const read = await amendReceiverName(client, id, plan, options);
        return toCheckout({ status: read.body }, factsOf(read));
      },
      async createRefund(params, options) {
        return refundTransfer(client, checkRefund(params, config), options);
      },
    },
    // Every check before the idempotency ledger is touched; a checkout's currency as sent (`eur` → `EUR`) is
    // fingerprinted (docs/architecture.md#idempotency).
    checks: {
      createPayment(params) {
        plans.set(params, checkTransfer('payments.create', params, config));
        return undefined;
      },
      createCheckout(params) {
        const plan = checkTransfer('checkouts.create', params, config);
        const checked = {
          ...params,
          provider_metadata: { ...params.provider_metadata, currency: plan.currency },
        };
        plans.set(checked, plan);
        return checked;
      },
      createRefund(params) {
        checkRefund(params, config);
        return undefined;
      },
    },
    unsupported: UNSUPPORTED_REASONS,
    // A read delivers what this adapter's webhooks raise (docs/architecture.md#reconciliation): a CLOSED transfer
    // (`canceled`) is `payment.updated` (docs/providers/provider-t.md#webhooks).
    reconcile: { events: { 'payment.canceled': 'payment.updated' } },
    resolve: (lookup, options) => resolveTransfer(client, lookup, options),
    webhooks: createWebhooks(client),
  });
  // `Object.assign` keeps the adapter itself, with core's non-enumerable mark that it runs the ledger on validated
  // input (a spread copy would lose it).
  return Object.assign(adapter, {
    updateCredentials: (credentials: ProviderTCredentials) => client.updateCredentials(credentials),
  });
}

/**
 * Provider T commits a transfer only within 30 minutes of its `readyForCommit` (docs/providers/provider-t.md#commit),
 * so 30 minutes after the last commit was sent, a commit the status read does not show can no longer land.
 */
const COMMIT_WINDOW_MS = 30 * 60 * 1000;

/**
 * A transfer the status read does not show as committed: `null` (nothing moved, nothing can) only when no commit
 * was sent under the key or the last one more than {@link COMMIT_WINDOW_MS} ago; else {@link MayStillLand} until
 * the window closes (a new key in between could send the money twice).
 */
function commitNotShown(lookup: ResolveLookup, fromPoint: (name: string) => unknown): MayStillLand | null {
  const step = fromPoint('step') ?? lookup.context?.step;
  if (step === 'quoted' || step === 'updated' || step === 'quote' || step === 'update') return null;
  const sentAt = fromPoint('commitSentAt');
  const closesAt = typeof sentAt === 'number' ? sentAt + COMMIT_WINDOW_MS : null;
  if (closesAt !== null && Date.now() >= closesAt) return null;
  return {
    mayStillLand: true,
    reason: `Provider T does not show the transfer as committed (yet), but its commit may still be processed: Provider T commits within 30 minutes of readyForCommit${closesAt === null ? '' : `, so it can land until ${new Date(closesAt).toISOString()}`}. Do not send it with a new key; a retry with the same idempotency key resumes it safely.`,
    askAgainAt: closesAt,
  };
}

/**
 * `pay.resolve` for Provider T (docs/architecture.md#createpay): the status read of the transaction id in the
 * error's context or the recovery point (a refund: the Refund once `REFUNDED`, else `null`); `undefined` without
 * one, since Provider T offers no lookup by client request id (docs/providers/provider-t.md#refunds).
 */
async function resolveTransfer(
  client: ProviderTClient,
  lookup: ResolveLookup,
  options: CallOptions,
): Promise<ResolvedRecord> {
  const point = lookup.recoveryPoint;
  const fromPoint = (name: string): unknown => (isRecord(point) ? point[name] : undefined);
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  const transactionId = text(lookup.context?.transactionId) ?? text(fromPoint('transactionId'));
  const { operation } = lookup;
  if (!transactionId || !['payments.create', 'checkouts.create', 'refunds.create'].includes(operation))
    return;
  const context = { transactionId, step: 'resolve' };
  const read = await findTransaction(client, transactionId, options, { context });
  const facts = { livemode: client.config.livemode, requestId: read?.requestId ?? null };
  if (operation === 'refunds.create') {
    if (read?.body.transactionStatus !== 'REFUNDED') return null;
    const refund = toRefund({ status: read.body }, facts);
    const refundId = text(fromPoint('refundId')) ?? text(lookup.context?.refundId);
    return refundId ? { ...refund, id: refundId } : refund;
  }
  if (!read) return commitNotShown(lookup, fromPoint);
  return operation === 'checkouts.create'
    ? toCheckout({ status: read.body }, facts)
    : toPayment({ status: read.body }, facts);
}
