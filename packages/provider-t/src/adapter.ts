/**
 * The Provider T adapter (spec §1–§7): each operation checks its input completely, then delegates to the
 * module that talks to the provider. Operations the provider cannot perform throw
 * `ProviderNotSupportedError` with the spec's reasons, before validation and before any I/O.
 */
import {
  type Adapter,
  type AdapterTypes,
  amountIssues,
  assertNoIssues,
  type CallOptions,
  type Checkout,
  defineAdapter,
  type ResolvedRecord,
  type ResolveLookup,
  type UpdateParams,
  ValidationError,
  type ValidationIssue,
} from '@pay/core';
import { amendReceiverName } from './amend.js';
import type { ProviderTIdentity, ResolvedConfig } from './config.js';
import {
  check,
  checkoutMetadataSchema,
  type ProviderTCheckoutMetadata,
  type ProviderTRefundMetadata,
  type ProviderTTransferMetadata,
  type ProviderTUpdateMetadata,
  planTransfer,
  refundMetadataSchema,
  type TransferInput,
  type TransferPlan,
  transferMetadataSchema,
  updateMetadataSchema,
} from './input.js';
import {
  confirmedTransferCheckout,
  confirmedTransferPayment,
  statusCheckout,
  statusPayment,
  statusRefund,
  transferCheckout,
  transferPayment,
} from './mapping.js';
import { DEFAULT_REFUND_REASON_CODE, refundTransfer } from './refund.js';
import { findTransaction } from './status.js';
import { sendTransfer } from './transfer.js';
import { createTransport, PROVIDER, type ProviderTTransport } from './transport.js';
import { type ProviderTRawEvents, providerTWebhooks } from './webhooks.js';

/** Provider T's declared types: `provider_metadata` per operation, raw events, and what checkouts resolve to. */
export interface ProviderTTypes extends AdapterTypes {
  provider: 'providerT';
  metadata: {
    'payments.create': ProviderTTransferMetadata;
    'checkouts.create': ProviderTCheckoutMetadata;
    'payments.update': ProviderTUpdateMetadata;
    'checkouts.update': ProviderTUpdateMetadata;
    'refunds.create': ProviderTRefundMetadata;
  };
  rawEvents: ProviderTRawEvents;
  checkout: Checkout;
}

/** A configured Provider T adapter. */
export type ProviderTAdapter = Adapter<ProviderTTypes>;

/** Why each operation Provider T cannot perform is unsupported (spec §7). */
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

/** Builds the adapter from a resolved config. */
export function buildAdapter(config: ResolvedConfig): ProviderTAdapter {
  const transport = createTransport(config);
  const { livemode } = config;
  return defineAdapter<ProviderTTypes>({
    provider: PROVIDER,
    operations: {
      async createPayment(params, options) {
        const plan = checkedTransfer('payments.create', params, []);
        const sent = await sendTransfer(transport, plan, options);
        return sent.commit
          ? transferPayment(sent.transactionId, plan, sent.update, sent.commit, livemode)
          : confirmedTransferPayment(plan, sent.confirmed, livemode);
      },
      async createCheckout(params, options) {
        const metadata = params.provider_metadata as { amount?: unknown; currency?: unknown } | undefined;
        // A checkout takes its amount and currency in provider_metadata (spec §2); top-level ones are refused
        // rather than guessed between.
        const misplaced = (['amount', 'currency'] as const)
          .filter((field) => params[field] !== undefined)
          .map((field) => ({
            path: field,
            message: `is not used by Provider T checkouts: put it in provider_metadata.${field}`,
          }));
        const plan = checkedTransfer(
          'checkouts.create',
          { ...params, amount: metadata?.amount, currency: metadata?.currency },
          misplaced,
        );
        const sent = await sendTransfer(transport, plan, options);
        return sent.commit
          ? transferCheckout(sent.transactionId, plan, sent.update, sent.commit, Date.now(), livemode)
          : confirmedTransferCheckout(plan, sent.confirmed, livemode);
      },
      async retrievePayment(id, options) {
        const status = await findTransaction(transport, id, options);
        return status && statusPayment(status, livemode);
      },
      async retrieveCheckout(id, options) {
        const status = await findTransaction(transport, id, options);
        return status && statusCheckout(status, livemode);
      },
      async updatePayment(id, params, options) {
        return statusPayment(await amend(transport, 'payments.update', id, params, options), livemode);
      },
      async updateCheckout(id, params, options) {
        return statusCheckout(await amend(transport, 'checkouts.update', id, params, options), livemode);
      },
      async createRefund(params, options) {
        const { output: metadata, issues } = check(
          refundMetadataSchema,
          params.provider_metadata ?? {},
          'provider_metadata',
        );
        // What can be checked without the refund read is checked before it; the whole-amount rule after it.
        if (params.amount !== undefined) {
          issues.push(...amountIssues(params.amount, 'amount', { unit: 'major', currency: params.currency }));
        }
        assertNoIssues(issues, 'refunds.create');
        return refundTransfer(
          transport,
          {
            transactionId: params.payment_id,
            amount: params.amount,
            currency: params.currency,
            reason: params.reason ?? null,
            metadata: params.metadata ?? {},
            refundReasonCode: metadata?.refundReasonCode ?? DEFAULT_REFUND_REASON_CODE,
            refundFee: metadata?.refundFee,
            identity: identityOf(transport.config.identity, metadata),
          },
          options,
        );
      },
    },
    unsupported: UNSUPPORTED_REASONS,
    resolve: (lookup, options) => resolveTransfer(transport, lookup, options),
    webhooks: providerTWebhooks(transport, {
      publicKey: config.webhookPublicKey,
      host: config.webhookHost,
      isSandbox: !livemode,
      agentPartnerId: config.identity.agentPartnerId,
    }),
  });
}

/**
 * `pay.resolve` for Provider T (issue 14): what the provider holds for a transfer or refund whose outcome is
 * unknown. The transaction id comes from the error's context or the ledger's recovery point; the status read
 * answers: the Payment / Checkout (a refund: the Refund once the transfer is `REFUNDED`), `null` when Provider T
 * knows no committed transfer with the id (400/697 or 404, so nothing moved) or a refund lookup finds the transfer
 * not refunded, and `undefined` without a transaction id: Provider T offers no lookup by client request id (wire
 * contract), so a key whose quote never answered cannot be told.
 */
async function resolveTransfer(
  transport: ProviderTTransport,
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
  const status = await findTransaction(transport, transactionId, {
    signal: options.signal,
    context: { transactionId, step: 'resolve' },
  });
  const { livemode } = transport.config;
  if (operation === 'refunds.create') {
    if (status?.transactionStatus !== 'REFUNDED') return null;
    const refund = statusRefund(status, livemode);
    const refundId = text(fromPoint('refundId')) ?? text(lookup.context?.refundId);
    return refundId ? { ...refund, id: refundId } : refund;
  }
  if (!status) return null;
  return operation === 'checkouts.create'
    ? statusCheckout(status, livemode)
    : statusPayment(status, livemode);
}

/** Where each transfer operation takes its metadata, amount and currency from. */
const TRANSFER_SHAPES = {
  'payments.create': { schema: transferMetadataSchema, where: { amount: 'amount', currency: 'currency' } },
  'checkouts.create': {
    schema: checkoutMetadataSchema,
    where: { amount: 'provider_metadata.amount', currency: 'provider_metadata.currency' },
  },
} as const;

/** Checks a transfer request completely before the quote: one `ValidationError` lists every issue. */
function checkedTransfer(
  operation: keyof typeof TRANSFER_SHAPES,
  input: TransferInput,
  otherIssues: ValidationIssue[],
): TransferPlan {
  const shape = TRANSFER_SHAPES[operation];
  const result = planTransfer(input, shape.schema, shape.where);
  const issues = [...result.issues, ...otherIssues];
  if (!result.plan || issues.length > 0) throw new ValidationError(issues, { operation });
  return result.plan;
}

/** Identity fields of non-transfer calls, each overridable per call. */
function identityOf(
  defaults: ProviderTIdentity,
  overrides: Partial<ProviderTIdentity> | undefined,
): ProviderTIdentity {
  return {
    targetAudience: overrides?.targetAudience ?? defaults.targetAudience,
    agentPartnerId: overrides?.agentPartnerId ?? defaults.agentPartnerId,
    userLanguage: overrides?.userLanguage ?? defaults.userLanguage,
  };
}

/** `payments.update` / `checkouts.update`: the receiver-name amendment, or only the re-read (spec §4). */
async function amend(
  transport: ProviderTTransport,
  operation: 'payments.update' | 'checkouts.update',
  id: string,
  params: UpdateParams,
  options: CallOptions,
) {
  const { output: metadata, issues } = check(
    updateMetadataSchema,
    params.provider_metadata ?? {},
    'provider_metadata',
  );
  if (params.metadata !== undefined) {
    issues.push({
      path: 'metadata',
      message: 'cannot be changed on a Provider T transfer; only the receiver name can be amended',
    });
  }
  assertNoIssues(issues, operation);
  return amendReceiverName(
    transport,
    id,
    { firstName: metadata?.receiverFirstName, lastName: metadata?.receiverLastName },
    identityOf(transport.config.identity, metadata),
    options,
  );
}
