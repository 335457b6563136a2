/**
 * Input checks (every issue in one `ValidationError`, before any call) and the wire request of each Provider Xyz
 * call (TODO: the provider's paths and field names). Amounts arrive in the currency's standard unit and are
 * converted exactly, never with float arithmetic
 * (https://github.com/pay-sdk/pay/blob/main/docs/architecture.md#money).
 */
import {
  amountIssues,
  type CheckoutCreateParams,
  type RefundCreateParams,
  toMinorUnits,
  toValidationIssues,
  ValidationError,
  type ValidationIssue,
} from '@pay/core/adapter';
import * as v from '@pay/core/schema';
import { checkoutMetadataSchema } from './metadata.js';

/** TODO: the unit the provider's API takes amounts in: `minor` (1999 for 19.99) or `major` (19.99). */
export const AMOUNT_UNIT: 'major' | 'minor' = 'minor';

/** TODO: the currency used when the caller names none. */
export const DEFAULT_CURRENCY = 'USD';

/** `amount` of `currency` in the provider's wire unit, or the issues that keep it from being sent. */
function wireAmount(amount: number | undefined, currency: string, path: string, issues: ValidationIssue[]) {
  const found = amountIssues(amount, path, { unit: 'major', currency });
  issues.push(...found);
  if (found.length > 0 || amount === undefined) return 0;
  return AMOUNT_UNIT === 'minor' ? toMinorUnits(amount, currency) : amount;
}

/** The checkout to open, checked: every issue in one `ValidationError`. */
export function checkoutRequest(params: CheckoutCreateParams, reference: string) {
  const issues: ValidationIssue[] = [];
  const currency = params.currency ?? DEFAULT_CURRENCY;
  const amount = wireAmount(params.amount, currency, 'amount', issues);
  if (params.amount === undefined) issues.push({ path: 'amount', message: 'is required' });
  const metadata = v.safeParse(checkoutMetadataSchema, params.provider_metadata ?? {}, { abortEarly: false });
  if (!metadata.success) issues.push(...toValidationIssues(metadata.issues, 'provider_metadata'));
  if (issues.length > 0 || !metadata.success)
    throw new ValidationError(issues, { operation: 'checkouts.create' });
  return {
    call: 'create checkout',
    method: 'POST' as const,
    path: '/checkouts',
    json: { amount, currency, reference, email: metadata.output.email, return_url: params.success_url },
  };
}

/** The status read of payment `id`. */
export function paymentRequest(id: string) {
  return { call: 'read payment', method: 'GET' as const, path: `/payments/${encodeURIComponent(id)}` };
}

/** The refund to make, checked. */
export function refundRequest(params: RefundCreateParams, reference: string) {
  const issues: ValidationIssue[] = [];
  const currency = params.currency ?? DEFAULT_CURRENCY;
  const amount =
    params.amount === undefined ? undefined : wireAmount(params.amount, currency, 'amount', issues);
  if (issues.length > 0) throw new ValidationError(issues, { operation: 'refunds.create' });
  return {
    call: 'create refund',
    method: 'POST' as const,
    path: '/refunds',
    json: { payment: params.payment_id, amount, reference },
  };
}
