/**
 * Input checks, the merchant reference of a money-moving call, and the wire request of each Provider Xyz call
 * (TODO: the provider's paths and field names). The checks run before the idempotency ledger and any call
 * (`checks` in adapter.ts), every issue in one `ValidationError`; amounts arrive in the currency's standard unit
 * and are converted exactly, never with float arithmetic
 * (https://github.com/pay-sdk/pay/blob/main/docs/architecture.md#money).
 */
import {
  amountIssues,
  type CheckoutCreateParams,
  keyedReference,
  type OperationContext,
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

/** `amount` of `currency` in the provider's wire unit (a checked amount). */
function wireAmount(amount: number, currency: string): number {
  return AMOUNT_UNIT === 'minor' ? toMinorUnits(amount, currency) : amount;
}

/** The issues of an amount the provider cannot take (missing, negative, finer than the currency). */
function amountProblems(amount: number | undefined, currency: string): ValidationIssue[] {
  return amountIssues(amount, 'amount', { unit: 'major', currency });
}

/** Checks a checkout before anything is sent; resolves the currency. */
export function checkCheckout(params: CheckoutCreateParams): CheckoutCreateParams {
  const currency = params.currency ?? DEFAULT_CURRENCY;
  const issues = amountProblems(params.amount, currency);
  const metadata = v.safeParse(checkoutMetadataSchema, params.provider_metadata ?? {}, { abortEarly: false });
  if (!metadata.success) issues.push(...toValidationIssues(metadata.issues, 'provider_metadata'));
  if (issues.length > 0) throw new ValidationError(issues, { operation: 'checkouts.create' });
  return { ...params, currency };
}

/** Checks a refund before anything is sent; resolves the currency. */
export function checkRefund(params: RefundCreateParams): RefundCreateParams {
  const currency = params.currency ?? DEFAULT_CURRENCY;
  const issues = params.amount === undefined ? [] : amountProblems(params.amount, currency);
  if (issues.length > 0) throw new ValidationError(issues, { operation: 'refunds.create' });
  return { ...params, currency };
}

/**
 * The merchant reference of a money-moving call: derived from the caller's idempotency key, so a repeat after a
 * lost reply sends the same reference and the provider refuses it as a duplicate instead of moving money twice.
 */
export async function referenceOf(context: OperationContext): Promise<string> {
  return (await keyedReference(context)) ?? crypto.randomUUID();
}

/** The call opening a checkout for checked `params`, under the merchant `reference`. */
export function checkoutRequest(params: CheckoutCreateParams, reference: string) {
  const currency = params.currency ?? DEFAULT_CURRENCY;
  const { email } = v.parse(checkoutMetadataSchema, params.provider_metadata);
  return {
    call: 'create checkout',
    method: 'POST' as const,
    path: '/checkouts',
    json: { amount: wireAmount(params.amount ?? 0, currency), currency, reference, email },
  };
}

/** The status read of payment `id`. */
export function paymentRequest(id: string) {
  return { call: 'read payment', method: 'GET' as const, path: `/payments/${encodeURIComponent(id)}` };
}

/** The call refunding checked `params` (the whole payment when no amount is given). */
export function refundRequest(params: RefundCreateParams, reference: string) {
  const currency = params.currency ?? DEFAULT_CURRENCY;
  const amount = params.amount === undefined ? undefined : wireAmount(params.amount, currency);
  return {
    call: 'create refund',
    method: 'POST' as const,
    path: '/refunds',
    json: { payment: params.payment_id, amount, reference },
  };
}
