/**
 * The Provider T adapter (docs/architecture.md#behaviour): each operation checks its input completely (`checks.ts`), then runs
 * its flow or read through the client and maps the reply to a record (`mapping.ts`). Operations the provider
 * cannot perform throw `ProviderNotSupportedError` with the spec's reasons, before validation and before any I/O.
 */
import type { CallOptions } from '@pay/core/adapter';
import { defineAdapter, type MayStillLand, type ResolvedRecord, type ResolveLookup } from '@pay/core/adapter';
import { checkAmend, checkRefund, checkTransfer, type TransferPlan } from './checks.js';
import { createClient, PROVIDER, type ProviderTClient } from './client.js';
import type { ProviderTCredentials, ResolvedConfig } from './config.js';
import { amendReceiverName } from './flows/amend.js';
import { refundTransfer } from './flows/refund.js';
import { findTransaction } from './flows/status.js';
import { sendTransfer } from './flows/transfer.js';
import { toCheckout, toPayment, toRefund } from './mapping.js';
import type { ProviderTAdapter, ProviderTTypes } from './types.js';
import { providerTWebhooks } from './webhooks.js';

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
export function buildAdapter(config: ResolvedConfig): ProviderTAdapter {
  const client = createClient(config);
  const { livemode } = config;
  // The plan `checks` built from the very parameters core then passes to the operation: a transfer is checked
  // once per call, before the idempotency ledger (docs/architecture.md#idempotency).
  const plans = new WeakMap<object, TransferPlan>();
  const adapter = defineAdapter<ProviderTTypes>({
    provider: PROVIDER,
    operations: {
      async createPayment(params, options) {
        const plan = plans.get(params) ?? checkTransfer('payments.create', params, config);
        const transfer = await sendTransfer(client, plan, options);
        return toPayment({ transfer, plan }, { livemode, requestId: transfer.requestId });
      },
      async createCheckout(params, options) {
        const plan = plans.get(params) ?? checkTransfer('checkouts.create', params, config);
        const transfer = await sendTransfer(client, plan, options);
        return toCheckout({ transfer, plan }, { livemode, requestId: transfer.requestId });
      },
      async retrievePayment(id, options) {
        const read = await findTransaction(client, id, options);
        return read && toPayment({ status: read.body }, { livemode, requestId: read.requestId });
      },
      async retrieveCheckout(id, options) {
        const read = await findTransaction(client, id, options);
        return read && toCheckout({ status: read.body }, { livemode, requestId: read.requestId });
      },
      async updatePayment(id, params, options) {
        const plan = checkAmend('payments.update', params, config);
        const read = await amendReceiverName(client, id, plan, options);
        return toPayment({ status: read.body }, { livemode, requestId: read.requestId });
      },
      async updateCheckout(id, params, options) {
        const plan = checkAmend('checkouts.update', params, config);
        const read = await amendReceiverName(client, id, plan, options);
        return toCheckout({ status: read.body }, { livemode, requestId: read.requestId });
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
    webhooks: providerTWebhooks(client, {
      publicKeys: config.webhookPublicKeys,
      host: config.webhookHost,
      isSandbox: !livemode,
      agentPartnerId: config.identity.agentPartnerId,
    }),
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
 * was sent under the key (`quoted` / `updated`, or an error from the quote or update) or the last one was sent
 * more than {@link COMMIT_WINDOW_MS} ago. Otherwise the commit may still be processed by Provider T (a commit it
 * holds longer than the read takes): {@link MayStillLand}, until the window closes when the recovery point says
 * when the commit was sent. A new key in between could send the money twice; a retry with the same key resumes
 * with the same request ids, which Provider T processes once.
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
 * `pay.resolve` for Provider T (docs/architecture.md#createpay): what the provider holds for a transfer or refund
 * whose outcome is unknown. The transaction id comes from the error's context or the ledger's recovery point; the
 * status read answers: the Payment / Checkout (a refund: the Refund once the transfer is `REFUNDED`; `null` while
 * it is not), and `undefined` without a transaction id: Provider T offers no lookup by client request id
 * (docs/providers/provider-t.md#refunds), so a key whose quote never answered cannot be told. A transfer the read
 * does not show (400/697 or 404) is {@link commitNotShown}.
 */
async function resolveTransfer(
  client: ProviderTClient,
  lookup: ResolveLookup,
  options: CallOptions,
): Promise<ResolvedRecord> {
  const point = lookup.recoveryPoint;
  const fromPoint = (name: string): unknown =>
    typeof point === 'object' && point !== null && !Array.isArray(point) ? point[name] : undefined;
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  const transactionId = text(lookup.context?.transactionId) ?? text(fromPoint('transactionId'));
  const operation = lookup.operation;
  if (
    !transactionId ||
    (operation !== 'payments.create' && operation !== 'checkouts.create' && operation !== 'refunds.create')
  ) {
    return undefined;
  }
  const read = await findTransaction(client, transactionId, options, {
    context: { transactionId, step: 'resolve' },
  });
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
