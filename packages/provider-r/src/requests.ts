/**
 * Unified requests → Provider R calls, checked before the first upstream call (one `ValidationError`,
 * docs/architecture.md#errors). Amounts leave as the wire's integer minor units
 * (docs/providers/provider-r.md#amounts-and-currencies), converted exactly by core's `toMinorUnits`.
 */
import {
  amountIssues,
  assertNoIssues,
  type captureSchema,
  type checkoutCreateSchema,
  type HttpRequest,
  type Operation,
  type ProviderCall,
  path,
  type paymentCreateSchema,
  type refundCreateSchema,
  toMinorUnits,
  toValidationIssues,
  ValidationError,
  type ValidationIssue,
} from '@pay/core/adapter';
import * as v from '@pay/core/schema';
import type { ProviderRConfig } from './config.js';
import {
  captureMetadataSchema,
  checkoutMetadataSchema,
  paymentMetadataSchema,
  refundMetadataSchema,
} from './metadata.js';
import { createReplySchema, PROVIDER_R_CURRENCIES, statusReplySchema } from './wire.js';

/** The provider's default label (docs/architecture.md#request-fields). */
export const DEFAULT_LABEL = 'Order from Eshop';
/** Currency of a payment created without one (docs/architecture.md#limits). */
export const DEFAULT_CURRENCY = 'CZK';

/** One upstream call, ready for the client: the HTTP request, the schema of its success body, and whether it can move money. */
export interface ProviderRCall<S extends v.GenericSchema = v.GenericSchema> extends HttpRequest {
  /** The call's name in errors (`POST /v2.0/payment`). */
  call: string;
  schema: S;
  /** True for creations, refunds, captures and cancels: a refusal proves nothing happened only in narrow cases. */
  movesMoney: boolean;
  /** The call carries the merchant secret as a form field too (the status call): the client adds it. */
  secretInForm?: true;
}

/**
 * The call as sent, with one secret for the whole call, Basic header and form alike, so a call under way when the
 * secret is replaced never mixes the two (docs/providers/provider-r.md#authentication).
 */
export function withCredentials(call: ProviderRCall, merchant: string, secret: string): ProviderCall {
  const { schema: _schema, movesMoney: _movesMoney, secretInForm, ...request } = call;
  return {
    ...request,
    auth: { basic: [merchant, secret] },
    ...(secretInForm ? { form: { ...request.form, secret } } : {}),
  };
}

/** A reply that only acknowledges (`{ code: 0, message: "OK" }`): capture, cancel, refund. */
const acknowledgementSchema = v.looseObject({});

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

/** One call: its name, the schema of its success body, whether it can move money, and the HTTP request. */
function wire<S extends v.GenericSchema>(
  call: string,
  schema: S,
  movesMoney: boolean,
  request: Omit<HttpRequest, 'signal'> & Pick<ProviderRCall, 'secretInForm'>,
): ProviderRCall<S> {
  return { call, schema, movesMoney, ...request };
}

/**
 * A creation (`POST`, never repeated: docs/architecture.md#http-client) of `body`; its `refId` names it in errors,
 * so a lost creation is found by it in the portal.
 */
function creation<B extends { refId?: string | undefined }>(call: string, path: string, body: B) {
  const context = body.refId === undefined ? undefined : { refId: body.refId };
  const request = { method: 'POST', path, json: body, retrySafe: false, context } as const;
  return { refId: body.refId, body, ...wire(call, createReplySchema, true, request) };
}

/** A one-issue `ValidationError`, for what is refused before any call that moves money. */
export const invalid = (operation: Operation, path: string, message: string) =>
  new ValidationError([{ path, message }], { operation });

/**
 * Checks a checkout request and builds the `POST /v2.0/paymentRedirect/merchant/{merchant}` call. `keyedRefId`
 * (the idempotency key's, `idempotencyRefId`) is sent unless `provider_metadata.refId` names one.
 */
export function checkoutRequest(
  input: v.InferOutput<typeof checkoutCreateSchema>,
  config: ProviderRConfig,
  keyedRefId?: string,
) {
  const issues: ValidationIssue[] = [];
  const metadata = readMetadata(checkoutMetadataSchema, input.provider_metadata, issues);
  // Amount and currency are top level for Provider R (docs/architecture.md#request-fields), and this adapter needs both.
  if (input.currency === undefined)
    issues.push({ path: 'currency', message: 'is required for a Provider R checkout' });
  else issues.push(...currencyIssues(input.currency, 'currency'));
  if (input.amount === undefined)
    issues.push({ path: 'amount', message: 'is required: the price in the currency unit (250.5 = 250.50)' });
  else issues.push(...amountIssues(input.amount, 'amount', { unit: 'major', currency: input.currency }));
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
  const currency = input.currency as string;
  const body = {
    // Exact decimal conversion to the wire's integer minor units: 250.5 CZK → 25050.
    price: toMinorUnits(input.amount as number, currency),
    curr: currency,
    label: metadata?.label ?? DEFAULT_LABEL,
    refId: metadata?.refId ?? keyedRefId ?? input.item_id,
    email: email as string,
    method: 'ALL',
    test: config.isSandbox,
    url_paid: input.success_url as string,
    url_cancelled: input.cancel_url as string,
    // A payment still pending (a bank transfer on its way) returns the payer to the success page.
    url_pending: input.success_url as string,
  };
  return creation(
    'POST /v2.0/paymentRedirect',
    path`/v2.0/paymentRedirect/merchant/${config.merchant}`,
    body,
  );
}

/** The body of `POST /v2.0/paymentRedirect` (docs/providers/provider-r.md#create-checkout). */
export type CheckoutBody = ReturnType<typeof checkoutRequest>['body'];

/** The body of `POST /v2.0/payment` (docs/providers/provider-r.md#create-payment). */
export type PaymentBody = ReturnType<typeof paymentRequest>['body'];

/** Checks a payment request and builds the `POST /v2.0/payment` call (`keyedRefId` as for a checkout). */
export function paymentRequest(
  input: v.InferOutput<typeof paymentCreateSchema>,
  config: ProviderRConfig,
  keyedRefId?: string,
) {
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
  const currency = input.currency ?? DEFAULT_CURRENCY;
  issues.push(...currencyIssues(currency, 'currency'));
  issues.push(...amountIssues(input.amount, 'amount', { unit: 'major', currency }));
  assertNoIssues(issues, 'payments.create');
  const body = {
    price: toMinorUnits(input.amount, currency),
    curr: currency,
    label: metadata?.paymentLabel ?? DEFAULT_LABEL,
    refId: metadata?.refId ?? keyedRefId ?? input.item_id,
    payerId: payerId as string,
    email: (metadata as v.InferOutput<typeof paymentMetadataSchema>).email,
    method: 'ALL',
    prepareOnly: true,
    test: config.isSandbox,
  };
  return creation('POST /v2.0/payment', '/v2.0/payment', body);
}

/** The v1.0 status call (docs/providers/provider-r.md#status): the read behind retrieve, capture, cancel, refund and webhooks. */
export function statusRequest(transId: string, config: ProviderRConfig) {
  return wire('POST /v1.0/status', statusReplySchema, false, {
    method: 'POST',
    path: '/v1.0/status',
    // The status call authenticates with these fields too (docs/architecture.md#reading-provider-r-auth).
    form: { merchant: config.merchant, transId },
    secretInForm: true,
    retrySafe: true,
  });
}

/** Checks a capture request; returns the amount to capture in the standard unit (`undefined`: all of it). */
export function captureAmount(input: v.InferOutput<typeof captureSchema>): number | undefined {
  const issues: ValidationIssue[] = [];
  readMetadata(captureMetadataSchema, input.provider_metadata, issues);
  // The currency is the payment's, known after the status read; every Provider R currency has hundredths.
  if (input.amount !== undefined) issues.push(...amountIssues(input.amount, 'amount', { unit: 'major' }));
  assertNoIssues(issues, 'payments.capture');
  return input.amount;
}

/** `PUT /v2.0/preauth/transId/{transId}.json`: captures `price` minor units (all of it without one). */
export function captureRequest(transId: string, price: number | undefined) {
  return wire('PUT /v2.0/preauth', acknowledgementSchema, true, {
    method: 'PUT',
    path: path`/v2.0/preauth/transId/${transId}.json`,
    json: price === undefined ? {} : { amount: price },
    // The provider refuses a second capture, so a retry cannot capture twice (flows/settle.ts reconciles).
    retrySafe: true,
    context: { transId },
  });
}

/** The two cancels: of a pre-authorisation (`AUTHORIZED`) and of a payment still `PENDING`. */
export function cancelRequest(what: 'cancelPreauthorisation' | 'cancelPending', transId: string) {
  const preauth = what === 'cancelPreauthorisation';
  return wire(preauth ? 'DELETE /v2.0/preauth' : 'DELETE /v2.0/payment', acknowledgementSchema, true, {
    method: 'DELETE',
    path: preauth ? path`/v2.0/preauth/transId/${transId}.json` : path`/v2.0/payment/transId/${transId}.json`,
    // The provider refuses a second cancel (the payment is no longer pending), so a retry cannot cancel twice.
    retrySafe: true,
    context: { transId },
  });
}

/**
 * Checks a refund request before any I/O. The refId is `provider_metadata.refId`, else the idempotency key's
 * (`keyedRefId`), else a new UUID; `amount` (standard unit) `undefined` refunds it all.
 */
export function refundRequest(input: v.InferOutput<typeof refundCreateSchema>, keyedRefId?: string) {
  const issues: ValidationIssue[] = [];
  const metadata = readMetadata(refundMetadataSchema, input.provider_metadata, issues);
  if (input.currency !== undefined) issues.push(...currencyIssues(input.currency, 'currency'));
  if (input.amount !== undefined)
    issues.push(...amountIssues(input.amount, 'amount', { unit: 'major', currency: input.currency }));
  assertNoIssues(issues, 'refunds.create');
  return {
    refId: metadata?.refId ?? keyedRefId ?? crypto.randomUUID(),
    amount: input.amount,
    currency: input.currency,
  };
}

/** What a refund sends: `price` in minor units of transaction `transId`, `test` as the configured mode. */
export type RefundSent = { transId: string; price: number; currency: string; refId: string; test: boolean };

/** `POST /v2.0/refund.json` of a refund. */
export function refundCall(refund: RefundSent) {
  const { transId, price, currency, refId, test } = refund;
  return wire('POST /v2.0/refund.json', acknowledgementSchema, true, {
    method: 'POST',
    path: '/v2.0/refund.json',
    json: { transId, amount: price, curr: currency, refId, test },
    retrySafe: false,
    // Names the refund in any error, so a caller can reconcile a lost reply by its refId.
    context: { transId, refId },
  });
}
