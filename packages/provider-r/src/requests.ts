/**
 * Unified requests → Provider R request bodies. Everything that can be checked without the provider is checked
 * here, before the first upstream call, and reported as one `ValidationError` listing every issue (design §4).
 */
import {
  amountIssues,
  assertNoIssues,
  type captureSchema,
  type checkoutCreateSchema,
  type paymentCreateSchema,
  type refundCreateSchema,
  toValidationIssues,
  type ValidationIssue,
} from '@pay/core';
import * as v from '@pay/core/schema';
import type { CheckoutBody, PaymentBody } from './upstream.js';
import { PROVIDER_R_CURRENCIES } from './wire.js';

/** The provider's default label (spec §2). */
export const DEFAULT_LABEL = 'Order from Eshop';
/** Currency of a payment created without one (spec §8). */
export const DEFAULT_CURRENCY = 'CZK';

/** `provider_metadata` of `checkouts.create` (and `createCheckoutRedirect`). */
export interface ProviderRCheckoutMetadata {
  /** Label shown to the payer, 1–16 characters. Default `Order from Eshop`. */
  label?: string;
  /** The payer's e-mail when `customer` is given by `id` (a `customer.email` wins). */
  email?: string;
  /** The merchant's reference sent as `refId`. Default: `item_id`. */
  refId?: string;
}

/** `provider_metadata` of `payments.create`. */
export interface ProviderRPaymentMetadata {
  /** The payer's e-mail (required, spec §2). */
  email: string;
  /** Label shown to the payer, 1–16 characters. Default `Order from Eshop`. */
  paymentLabel?: string;
  /** The merchant's reference sent as `refId`. Default: `item_id`. */
  refId?: string;
}

/** `provider_metadata` of `refunds.create`. */
export interface ProviderRRefundMetadata {
  /** The refund's reference (`refId`), which becomes the Refund's `id`. Default: a new UUID. */
  refId?: string;
}

/** `provider_metadata` of `payments.capture`: Provider R takes nothing beyond the amount. */
export type ProviderRCaptureMetadata = Record<string, never>;

type CheckoutInput = v.InferOutput<typeof checkoutCreateSchema>;
type PaymentInput = v.InferOutput<typeof paymentCreateSchema>;
type CaptureInput = v.InferOutput<typeof captureSchema>;
type RefundInput = v.InferOutput<typeof refundCreateSchema>;

const labelSchema = v.pipe(
  v.string('must be a string'),
  v.minLength(1, 'must be 1–16 characters'),
  v.maxLength(16, 'must be 1–16 characters'),
);
const emailSchema = v.pipe(v.string('is required: the payer e-mail'), v.email('must be an e-mail address'));
const referenceSchema = v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'));

const checkoutMetadataSchema = v.strictObject({
  label: v.optional(labelSchema),
  email: v.optional(emailSchema),
  refId: v.optional(referenceSchema),
});
const paymentMetadataSchema = v.strictObject({
  email: emailSchema,
  paymentLabel: v.optional(labelSchema),
  refId: v.optional(referenceSchema),
});
const refundMetadataSchema = v.strictObject({ refId: v.optional(referenceSchema) });
const captureMetadataSchema = v.strictObject({});

/** Parses a `provider_metadata` object, adding its issues (prefixed) to `issues`. */
function readMetadata<S extends v.GenericSchema>(
  schema: S,
  value: unknown,
  issues: ValidationIssue[],
): v.InferOutput<S> | undefined {
  const result = v.safeParse(schema, value ?? {}, { abortEarly: false });
  if (result.success) return result.output;
  issues.push(...toValidationIssues(result.issues, 'provider_metadata'));
  return undefined;
}

function currencyIssues(currency: string, path: string): ValidationIssue[] {
  return (PROVIDER_R_CURRENCIES as readonly string[]).includes(currency)
    ? []
    : [{ path, message: `is not a currency Provider R accepts (${PROVIDER_R_CURRENCIES.join(', ')})` }];
}

/** Checks an optional minor-unit amount (capture, refund): an integer above zero when given. */
function optionalAmountIssues(amount: number | undefined): ValidationIssue[] {
  return amount === undefined ? [] : amountIssues(amount, 'amount', { unit: 'minor' });
}

/**
 * Checks a checkout request and builds the `paymentRedirect` body. `keyedRefId` is the refId the call's
 * idempotency key derives (`idempotencyRefId`): it is sent unless `provider_metadata.refId` names one.
 */
export function checkoutBody(input: CheckoutInput, isSandbox: boolean, keyedRefId?: string): CheckoutBody {
  const issues: ValidationIssue[] = [];
  const metadata = readMetadata(checkoutMetadataSchema, input.provider_metadata, issues);
  // Amount and currency are top level for Provider R (spec §2), and this adapter needs both.
  if (input.amount === undefined)
    issues.push({ path: 'amount', message: 'is required: the price in minor units (10000 = 100.00)' });
  else issues.push(...amountIssues(input.amount, 'amount', { unit: 'minor' }));
  if (input.currency === undefined)
    issues.push({ path: 'currency', message: 'is required for a Provider R checkout' });
  else issues.push(...currencyIssues(input.currency, 'currency'));
  if (input.success_url === undefined)
    issues.push({ path: 'success_url', message: 'is required: where the payer returns after paying' });
  if (input.cancel_url === undefined)
    issues.push({ path: 'cancel_url', message: 'is required: where the payer returns after cancelling' });
  const email = input.customer && 'email' in input.customer ? input.customer.email : metadata?.email;
  if (email === undefined && !issues.some((issue) => issue.path === 'provider_metadata.email')) {
    issues.push({
      path: 'customer',
      message:
        'needs the payer e-mail: pass customer { email }, or provider_metadata.email with customer { id }',
    });
  }
  assertNoIssues(issues, 'checkouts.create');
  return {
    price: input.amount as number,
    curr: input.currency as string,
    label: metadata?.label ?? DEFAULT_LABEL,
    refId: metadata?.refId ?? keyedRefId ?? input.item_id,
    email: email as string,
    method: 'ALL',
    test: isSandbox,
    url_paid: input.success_url as string,
    url_cancelled: input.cancel_url as string,
    // A payment still pending (a bank transfer on its way) returns the payer to the success page.
    url_pending: input.success_url as string,
  };
}

/** Checks a payment request and builds the `POST /v2.0/payment` body (`keyedRefId` as for a checkout). */
export function paymentBody(input: PaymentInput, isSandbox: boolean, keyedRefId?: string): PaymentBody {
  const issues: ValidationIssue[] = [];
  const metadata = readMetadata(paymentMetadataSchema, input.provider_metadata, issues);
  let payerId: string | undefined;
  if (input.customer === undefined)
    issues.push({ path: 'customer', message: 'is required: Provider R identifies the payer by { id }' });
  else if ('email' in input.customer) {
    issues.push({
      path: 'customer',
      message:
        'must be { id }: Provider R identifies the payer by id; put the e-mail in provider_metadata.email',
    });
  } else payerId = input.customer.id;
  issues.push(...amountIssues(input.amount, 'amount', { unit: 'minor' }));
  const currency = input.currency ?? DEFAULT_CURRENCY;
  issues.push(...currencyIssues(currency, 'currency'));
  assertNoIssues(issues, 'payments.create');
  return {
    price: input.amount,
    curr: currency,
    label: metadata?.paymentLabel ?? DEFAULT_LABEL,
    refId: metadata?.refId ?? keyedRefId ?? input.item_id,
    payerId: payerId as string,
    email: (metadata as ProviderRPaymentMetadata).email,
    method: 'ALL',
    prepareOnly: true,
    test: isSandbox,
  };
}

/** Checks a capture request; returns the amount to capture (`undefined`: the whole authorisation). */
export function captureAmount(input: CaptureInput): number | undefined {
  const issues: ValidationIssue[] = [];
  readMetadata(captureMetadataSchema, input.provider_metadata, issues);
  issues.push(...optionalAmountIssues(input.amount));
  assertNoIssues(issues, 'payments.capture');
  return input.amount;
}

/** What a refund request asks for, checked before the status read. */
export interface RefundRequest {
  refId: string;
  amount: number | undefined;
  currency: string | undefined;
}

/**
 * Checks a refund request before any I/O. The refId is `provider_metadata.refId`, else the one the call's
 * idempotency key derives (`keyedRefId`), else a new UUID.
 */
export function refundRequest(input: RefundInput, keyedRefId?: string): RefundRequest {
  const issues: ValidationIssue[] = [];
  const metadata = readMetadata(refundMetadataSchema, input.provider_metadata, issues);
  issues.push(...optionalAmountIssues(input.amount));
  if (input.currency !== undefined) issues.push(...currencyIssues(input.currency, 'currency'));
  assertNoIssues(issues, 'refunds.create');
  return {
    refId: metadata?.refId ?? keyedRefId ?? crypto.randomUUID(),
    amount: input.amount,
    currency: input.currency,
  };
}
