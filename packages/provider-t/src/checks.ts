/**
 * The checks before the first upstream call (docs/architecture.md#adapter-operations): every issue in one
 * `ValidationError`, so nothing is quoted for a request that cannot succeed. Each returns the plan its flow sends.
 */
import {
  amountIssues,
  assertNoIssues,
  type CheckoutCreateParams,
  currencySchema,
  type PaymentCreateParams,
  type RefundCreateParams,
  toValidationIssues,
  type UpdateParams,
  ValidationError,
  type ValidationIssue,
} from '@pay/core/adapter';
import * as v from '@pay/core/schema';
import type { ProviderTIdentity, ResolvedConfig } from './config.js';
import {
  checkoutMetadataSchema,
  DEFAULT_REFUND_REASON_CODE,
  METADATA_FACT_KEYS,
  refundMetadataSchema,
  type TransferMetadata,
  transferMetadataSchema,
  updateMetadataSchema,
} from './metadata.js';

/** Validates `input`, returning the output or the issues (valibot's missing-key text made readable). */
function check<S extends v.GenericSchema>(
  schema: S,
  input: unknown,
  prefix = 'provider_metadata',
): { output: v.InferOutput<S> | undefined; issues: ValidationIssue[] } {
  const result = v.safeParse(schema, input, { abortEarly: false });
  if (result.success) return { output: result.output, issues: [] };
  const issues = toValidationIssues(result.issues, prefix).map((issue) =>
    issue.message.startsWith('Invalid key:') ? { ...issue, message: 'is required' } : issue,
  );
  return { output: undefined, issues };
}

/** Everything a transfer needs, checked: what the quote, update and commit steps send, and what the record echoes. */
export type TransferPlan = ReturnType<typeof checkTransfer>;

/** Where each transfer operation takes its metadata, amount and currency from. */
const TRANSFER_SHAPES = {
  'payments.create': { schema: transferMetadataSchema, amount: 'amount', currency: 'currency' },
  'checkouts.create': {
    schema: checkoutMetadataSchema,
    amount: 'provider_metadata.amount',
    currency: 'provider_metadata.currency',
  },
} as const;

/**
 * Checks a transfer request completely before the quote (docs/architecture.md#request-fields): sender and receiver,
 * amount in major units with no more than the currency's minor digits, currency, a destination country. A checkout
 * takes amount and currency in `provider_metadata`: top-level ones are refused rather than guessed between.
 */
export function checkTransfer(
  operation: keyof typeof TRANSFER_SHAPES,
  input: Partial<PaymentCreateParams<unknown> & CheckoutCreateParams<unknown>>,
  config: ResolvedConfig,
) {
  const shape = TRANSFER_SHAPES[operation];
  const checkout = operation === 'checkouts.create';
  const given = checkout ? (input.provider_metadata as Record<string, unknown> | undefined) : input;
  const amount = given?.amount;
  const currencyText = given?.currency;
  const { output: metadata, issues: metadataIssues } = check(shape.schema, input.provider_metadata ?? {});
  // Amount and currency are reported below with the payment's wording, once.
  const issues = metadataIssues.filter(
    (issue) => issue.path !== shape.amount && issue.path !== shape.currency,
  );
  const currency = check(currencySchema, currencyText, shape.currency);
  if (currencyText === undefined) {
    issues.push({
      path: shape.currency,
      message: 'is required: Provider T needs the currency of the amount sent',
    });
  } else {
    issues.push(...currency.issues);
  }
  if (amount === undefined) issues.push({ path: shape.amount, message: 'is required' });
  else issues.push(...amountIssues(amount, shape.amount, { unit: 'major', currency: currency.output }));
  const destination = metadata && destinationOf(metadata, issues);
  const additionalDetails = mergedDetails(input.metadata ?? {}, metadata?.additionalDetails ?? {}, issues);
  for (const field of checkout ? (['amount', 'currency'] as const) : []) {
    if (input[field] === undefined) continue;
    issues.push({
      path: field,
      message: `is not used by Provider T checkouts: put it in provider_metadata.${field}`,
    });
  }
  if (issues.length > 0 || !metadata || !destination || typeof amount !== 'number' || !currency.output) {
    throw new ValidationError(issues, { operation });
  }
  return {
    amount,
    currency: currency.output,
    destinationCountryCode: destination,
    // A checkout's also holds its amount and currency, which no request reads from it.
    metadata,
    // The identity fields of every step: the config's, each overridable through `provider_metadata`.
    identity: Object.assign(identityOf(config.identity, metadata), {
      operatorId: metadata.operatorId ?? config.operatorId,
      posId: metadata.posId ?? config.posId,
    }),
    // The caller's `metadata` merged with `provider_metadata.additionalDetails`, sent by the update so it comes
    // back on status reads; the record's `metadata` starts with exactly this.
    additionalDetails,
    customer: input.customer ?? null,
    itemId: input.item_id ?? null,
    quantity: input.quantity ?? 1,
  };
}

/** The destination country: `destinationCountryCode`, else the receiver's address country (alpha-3). */
function destinationOf(metadata: TransferMetadata, issues: ValidationIssue[]): string | undefined {
  if (metadata.destinationCountryCode) return metadata.destinationCountryCode;
  const country = metadata.receiver.address?.countryCode.toUpperCase();
  if (country === undefined) {
    issues.push({
      path: 'provider_metadata.destinationCountryCode',
      message: 'is required when provider_metadata.receiver.address.countryCode is not given',
    });
    return undefined;
  }
  if (!/^[A-Z]{3}$/.test(country)) {
    issues.push({
      path: 'provider_metadata.receiver.address.countryCode',
      message:
        'must be an ISO 3166 alpha-3 code to serve as the destination, or set provider_metadata.destinationCountryCode',
    });
    return undefined;
  }
  return country;
}

/**
 * The `additionalDetails` a transfer sends: `metadata` and `provider_metadata.additionalDetails` together. A key
 * given in both with different values, or named like a fact the record fills itself (`fees`, …), is an issue:
 * otherwise the provider would store one value and the record show another (docs/providers/provider-t.md#update).
 */
function mergedDetails(
  callerMetadata: Record<string, string>,
  details: Record<string, string>,
  issues: ValidationIssue[],
): Record<string, string> {
  const merged = new Map(Object.entries(callerMetadata));
  for (const [key, value] of Object.entries(details)) {
    const given = merged.get(key);
    if (given !== undefined && given !== value) {
      issues.push({
        path: `provider_metadata.additionalDetails.${key}`,
        message: `differs from metadata.${key}: give the value once (both are stored as the same additionalDetails entry)`,
      });
    }
    merged.set(key, value);
  }
  for (const key of merged.keys()) {
    if ((METADATA_FACT_KEYS as readonly string[]).includes(key)) {
      const path = Object.hasOwn(details, key)
        ? `provider_metadata.additionalDetails.${key}`
        : `metadata.${key}`;
      issues.push({
        path,
        message: `is a name the record uses for Provider T's own ${key}: choose another key`,
      });
    }
  }
  return Object.fromEntries(merged);
}

/** Identity fields of a call, each overridable per call through `provider_metadata`. */
export function identityOf(
  defaults: ProviderTIdentity,
  overrides?: Partial<ProviderTIdentity>,
): ProviderTIdentity {
  return {
    targetAudience: overrides?.targetAudience ?? defaults.targetAudience,
    agentPartnerId: overrides?.agentPartnerId ?? defaults.agentPartnerId,
    userLanguage: overrides?.userLanguage ?? defaults.userLanguage,
  };
}

/** A checked refund request; `amount`, when given, must equal the refundable amount. */
export type RefundPlan = ReturnType<typeof checkRefund>;

/**
 * Checks a refund before the refund read: metadata and the amount's digits. The whole-amount rule needs the
 * refundable amount and is checked after the read (docs/architecture.md#reading-provider-t-refunds).
 */
export function checkRefund(params: RefundCreateParams, config: ResolvedConfig) {
  const { output: metadata, issues } = check(refundMetadataSchema, params.provider_metadata ?? {});
  if (params.amount !== undefined) {
    issues.push(...amountIssues(params.amount, 'amount', { unit: 'major', currency: params.currency }));
  }
  assertNoIssues(issues, 'refunds.create');
  return {
    transactionId: params.payment_id,
    amount: params.amount,
    currency: params.currency,
    reason: params.reason ?? null,
    metadata: params.metadata ?? {},
    refundReasonCode: metadata?.refundReasonCode ?? DEFAULT_REFUND_REASON_CODE,
    refundFee: metadata?.refundFee,
    identity: identityOf(config.identity, metadata),
  };
}

/** A checked amendment: the name parts to change (none: only the re-read) and the identity of its calls. */
export type AmendPlan = ReturnType<typeof checkAmend>;

/** Checks `payments.update` / `checkouts.update`: only the receiver name can be amended (docs/architecture.md#operations). */
export function checkAmend(
  operation: 'payments.update' | 'checkouts.update',
  params: UpdateParams,
  config: ResolvedConfig,
) {
  const { output: metadata, issues } = check(updateMetadataSchema, params.provider_metadata ?? {});
  if (params.metadata !== undefined) {
    issues.push({
      path: 'metadata',
      message: 'cannot be changed on a Provider T transfer; only the receiver name can be amended',
    });
  }
  assertNoIssues(issues, operation);
  return {
    firstName: metadata?.receiverFirstName,
    lastName: metadata?.receiverLastName,
    identity: identityOf(config.identity, metadata),
  };
}
