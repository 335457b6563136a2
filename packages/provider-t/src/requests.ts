/**
 * What callers put in `provider_metadata` for Provider T, the checks made before the first upstream call
 * (docs/architecture.md#adapter-operations, docs/architecture.md#records), and the wire request of every call (docs/providers/provider-t.md#transfer, docs/providers/provider-t.md#status, "Receiver-name
 * amendment", "Refund"). Every issue the adapter can find without provider data is reported in one
 * `ValidationError`, so nothing is quoted, let alone committed, for a request that cannot succeed.
 */
import {
  amountIssues,
  assertNoIssues,
  type CustomerRef,
  currencySchema,
  type ErrorContext,
  path,
  type RefundCreateParams,
  toValidationIssues,
  type UpdateParams,
  ValidationError,
  type ValidationIssue,
} from '@pay/core/adapter';
import * as v from '@pay/core/schema';
import type { ProviderCall } from './client.js';
import type { ProviderTIdentity, ResolvedConfig } from './config.js';

const text = v.pipe(v.string('must be a string'), v.trim(), v.minLength(1, 'must not be empty'));
const optionalText = v.optional(text);
const optionalString = v.optional(v.string('must be a string'));
const alpha3 = v.pipe(
  v.string('must be a string'),
  v.regex(/^[A-Za-z]{3}$/, 'must be an ISO 3166 alpha-3 country code'),
  v.toUpperCase(),
);

/** A person's name (docs/providers/provider-t.md#update). */
export const nameSchema = v.looseObject({
  firstName: text,
  middleName: optionalText,
  lastName: text,
  secondLastName: optionalText,
});
/** A postal address (docs/providers/provider-t.md#update). Country codes are ISO 3166 alpha-3 (`USA`, `MEX`). */
export const addressSchema = v.looseObject({
  line1: text,
  line2: optionalText,
  line3: optionalText,
  city: text,
  countrySubdivisionCode: optionalText,
  countryCode: text,
  postalCode: optionalText,
});
const phoneSchema = v.looseObject({ number: text, countryDialCode: text });

/** The sender: full KYC data on every transfer, since Provider T stores no customers (docs/architecture.md#request-fields). */
export const senderSchema = v.looseObject({
  name: nameSchema,
  address: addressSchema,
  mobilePhone: phoneSchema,
  email: v.optional(v.pipe(v.string(), v.email('must be an e-mail address'))),
  personalDetails: v.looseObject({
    /** `YYYY-MM-DD`. */
    dateOfBirth: v.pipe(v.string('must be a string'), v.isoDate('must be a date as YYYY-MM-DD')),
    genderCode: optionalString,
    birthCountryCode: optionalString,
    citizenshipCountryCode: optionalString,
    occupationCode: optionalString,
  }),
  primaryIdentification: v.looseObject({ typeCode: text, id: text, issueCountryCode: text }),
  profileId: optionalText,
});

/** The receiver. Its address country is the destination when `destinationCountryCode` is not given. */
export const receiverSchema = v.looseObject({
  name: nameSchema,
  address: v.optional(addressSchema),
  mobilePhone: v.optional(phoneSchema),
});

/** Compliance data the update step enforces (docs/architecture.md#reading-provider-t-compliance): forwarded when given. */
export const transactionInformationSchema = v.looseObject({
  purposeOfTransactionCode: optionalString,
  sourceOfFundsCode: optionalString,
  proofOfFundsCode: optionalString,
  relationshipToReceiver: optionalString,
});

/** Identity fields a single call may override (docs/providers/provider-t.md#identity-fields). */
export const identityEntries = {
  targetAudience: optionalText,
  agentPartnerId: optionalText,
  userLanguage: optionalText,
};
const stringRecord = v.record(v.string(), v.string('values must be strings'));
const objectRecord = v.record(v.string(), v.unknown());

const transferEntries = {
  ...identityEntries,
  sender: senderSchema,
  receiver: receiverSchema,
  /** ISO 3166 alpha-3; default: `receiver.address.countryCode`. */
  destinationCountryCode: v.optional(alpha3),
  destinationCountrySubdivisionCode: optionalText,
  /** `WILL_CALL` (cash pickup), `BANK_DEPOSIT`, …; default: the first option the quote offers. */
  serviceOptionCode: optionalText,
  serviceOptionRoutingCode: optionalText,
  /** ISO 4217 currency the receiver gets; default: the provider's choice for the destination. */
  receiveCurrencyCode: v.optional(currencySchema),
  transactionInformation: v.optional(transactionInformationSchema),
  fundingSource: v.optional(objectRecord),
  targetAccountProfileId: optionalText,
  targetAccount: v.optional(objectRecord),
  partnerTransactionId: optionalText,
  /**
   * Free key/values stored with the transfer; the request's `metadata` is sent here too. A key present in both
   * with different values is refused, so the record shows exactly what the provider stores.
   */
  additionalDetails: v.optional(stringRecord),
  operatorId: optionalText,
  posId: optionalText,
};

/** `provider_metadata` of `payments.create`. Unknown members are refused: a misspelt one would be lost. */
export const transferMetadataSchema = v.strictObject(transferEntries);
/**
 * `provider_metadata` of `checkouts.create`: a transfer plus its amount (major units, `100.5` = 100.50, at most the
 * currency's minor digits) and currency (docs/architecture.md#request-fields). Both are required by the type; their values are checked with
 * the rest of the transfer (`checkTransfer`), exactly as a payment's top-level ones are.
 */
export const checkoutMetadataSchema = v.strictObject({
  ...transferEntries,
  amount: v.custom<number>(() => true),
  currency: v.custom<string>(() => true),
});
/** `provider_metadata` of `payments.update` / `checkouts.update`: the receiver-name amendment (docs/architecture.md#operations). */
export const updateMetadataSchema = v.strictObject({
  ...identityEntries,
  receiverFirstName: optionalText,
  receiverLastName: optionalText,
});
/** `provider_metadata` of `refunds.create`. */
export const refundMetadataSchema = v.strictObject({
  ...identityEntries,
  /** Enumerated reason (`CUSTOMER_REQUEST`, `INCORRECT_AMT`, `WRONG_RECEIVER`, …); default `CUSTOMER_REQUEST`. */
  refundReasonCode: v.optional(
    v.pipe(text, v.regex(/^[A-Z][A-Z0-9_]*$/, 'must be an upper-case reason code')),
  ),
  /** Ask the provider to refund the transfer fee too. */
  refundFee: v.optional(v.boolean('must be true or false')),
});

/** A parsed transfer `provider_metadata`. */
export type TransferMetadata = v.InferOutput<typeof transferMetadataSchema>;

/**
 * Metadata keys the records fill with the provider's facts about a transfer (`mapping.ts`). A caller's `metadata`
 * or `additionalDetails` key of the same name would be overwritten in the record while the provider stores the
 * caller's value, so such keys are refused before the quote (docs/providers/provider-t.md#update).
 */
export const METADATA_FACT_KEYS = [
  'transactionStatus',
  'referenceNumber',
  'expectedPayoutDate',
  'destinationCountryCode',
  'serviceOptionCode',
  'serviceOptionName',
  'receiptUrl',
  'fees',
  'total',
  'receiveAmount',
  'receiveCurrency',
  'fxRate',
  'refundReasonCode',
] as const;

/** Reason code sent when `provider_metadata.refundReasonCode` is not given. */
export const DEFAULT_REFUND_REASON_CODE = 'CUSTOMER_REQUEST';

/** Validates `input`, returning the output or the issues (valibot's missing-key text made readable). */
function check<S extends v.GenericSchema>(
  schema: S,
  input: unknown,
  prefix: string,
): { output: v.InferOutput<S> | undefined; issues: ValidationIssue[] } {
  const result = v.safeParse(schema, input, { abortEarly: false });
  if (result.success) return { output: result.output, issues: [] };
  const issues = toValidationIssues(result.issues, prefix).map((issue) =>
    issue.message.startsWith('Invalid key:') ? { ...issue, message: 'is required' } : issue,
  );
  return { output: undefined, issues };
}

// ---------------------------------------------------------------------------------------------------------
// Checks before the first call.

/** Identity fields of transfer calls (docs/providers/provider-t.md#identity-fields): operator and point of sale too. */
export interface TransferIdentity extends ProviderTIdentity {
  operatorId: string;
  posId: string;
}

/** Everything a transfer needs, checked: what the quote, update and commit steps send, and what the record echoes. */
export interface TransferPlan {
  amount: number;
  currency: string;
  destinationCountryCode: string;
  metadata: TransferMetadata;
  /** The identity fields of every step: the config's, each overridable through `provider_metadata`. */
  identity: TransferIdentity;
  /**
   * What the update sends as `additionalDetails`: the caller's `metadata` merged with
   * `provider_metadata.additionalDetails` (no key conflicts), so it comes back on status reads. The record's
   * `metadata` starts with exactly this.
   */
  additionalDetails: Record<string, string>;
  customer: CustomerRef;
  itemId: string | null;
  quantity: number;
}

/** The fields of a `payments.create` / `checkouts.create` request the plan is built from. */
export interface TransferInput {
  amount?: unknown;
  currency?: unknown;
  provider_metadata?: unknown;
  metadata?: Record<string, string> | undefined;
  customer?: CustomerRef | undefined;
  item_id?: string | undefined;
  quantity?: number | undefined;
}

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
 * Checks a transfer request completely before the quote: sender and receiver (docs/architecture.md#request-fields: required on every call),
 * amount in major units with no more than the currency's minor digits, currency, a destination country. A
 * checkout takes amount and currency in `provider_metadata` (docs/architecture.md#request-fields): top-level ones are refused rather than
 * guessed between. One `ValidationError` lists every issue.
 */
export function checkTransfer(
  operation: keyof typeof TRANSFER_SHAPES,
  input: TransferInput,
  config: ResolvedConfig,
): TransferPlan {
  const shape = TRANSFER_SHAPES[operation];
  const checkout = operation === 'checkouts.create';
  const given = checkout ? (input.provider_metadata as Record<string, unknown> | undefined) : input;
  const amount = given?.amount;
  const currencyText = given?.currency;
  const { output: metadata, issues: metadataIssues } = check(
    shape.schema,
    input.provider_metadata ?? {},
    'provider_metadata',
  );
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
  if (checkout) {
    for (const field of ['amount', 'currency'] as const) {
      if (input[field] !== undefined) {
        issues.push({
          path: field,
          message: `is not used by Provider T checkouts: put it in provider_metadata.${field}`,
        });
      }
    }
  }
  if (issues.length > 0 || !metadata || !destination || typeof amount !== 'number' || !currency.output) {
    throw new ValidationError(issues, { operation });
  }
  const {
    amount: _amount,
    currency: _currency,
    ...transfer
  } = metadata as TransferMetadata & {
    amount?: unknown;
    currency?: unknown;
  };
  return {
    amount,
    currency: currency.output,
    destinationCountryCode: destination,
    metadata: transfer,
    identity: {
      ...identityOf(config.identity, transfer),
      operatorId: transfer.operatorId ?? config.operatorId,
      posId: transfer.posId ?? config.posId,
    },
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
 * The `additionalDetails` a transfer sends: the caller's `metadata` and `provider_metadata.additionalDetails`
 * together. A key given in both with different values, or named like a fact the record fills itself
 * (`referenceNumber`, `fees`, …), is an issue: otherwise the provider would store one value and the returned
 * record show another (docs/providers/provider-t.md#update).
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
  const reserved = new Set<string>(METADATA_FACT_KEYS);
  for (const key of merged.keys()) {
    if (reserved.has(key)) {
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
  overrides: Partial<ProviderTIdentity> | undefined,
): ProviderTIdentity {
  return {
    targetAudience: overrides?.targetAudience ?? defaults.targetAudience,
    agentPartnerId: overrides?.agentPartnerId ?? defaults.agentPartnerId,
    userLanguage: overrides?.userLanguage ?? defaults.userLanguage,
  };
}

/** A checked refund request. */
export interface RefundPlan {
  transactionId: string;
  /** The amount the caller expects back, when given: it must equal the refundable amount. */
  amount: number | undefined;
  currency: string | undefined;
  reason: string | null;
  metadata: Record<string, string>;
  refundReasonCode: string;
  refundFee: boolean | undefined;
  identity: ProviderTIdentity;
}

/**
 * Checks a refund before the refund read: metadata and the amount's digits. The whole-amount rule needs the
 * refundable amount and is checked after the read (docs/architecture.md#reading-provider-t-refunds).
 */
export function checkRefund(params: RefundCreateParams, config: ResolvedConfig): RefundPlan {
  const { output: metadata, issues } = check(
    refundMetadataSchema,
    params.provider_metadata ?? {},
    'provider_metadata',
  );
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
export interface AmendPlan {
  firstName: string | undefined;
  lastName: string | undefined;
  identity: ProviderTIdentity;
}

/** Checks `payments.update` / `checkouts.update`: only the receiver name can be amended (docs/architecture.md#operations). */
export function checkAmend(
  operation: 'payments.update' | 'checkouts.update',
  params: UpdateParams,
  config: ResolvedConfig,
): AmendPlan {
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
  return {
    firstName: metadata?.receiverFirstName,
    lastName: metadata?.receiverLastName,
    identity: identityOf(config.identity, metadata),
  };
}

// ---------------------------------------------------------------------------------------------------------
// Wire requests. Each names the call without any id or value (`call`), and says whether a repeat is safe.

/** Where a call is made from: a request id derived from an idempotency key, the context. */
export interface CallSettings {
  requestId?: string | undefined;
  context: ErrorContext;
}

function settings(call: CallSettings) {
  return {
    ...(call.requestId ? { requestId: call.requestId } : {}),
    context: call.context,
  };
}

/** Transfer step 1, the quote: reserves a transaction id. Never retried (a repeat would reserve another). */
export function quoteRequest(plan: TransferPlan, call: CallSettings): ProviderCall {
  const { metadata } = plan;
  return {
    call: 'POST /transfer/v1/transactions/quote',
    method: 'POST',
    path: '/transfer/v1/transactions/quote',
    json: {
      ...plan.identity,
      destinationCountryCode: plan.destinationCountryCode,
      destinationCountrySubdivisionCode: metadata.destinationCountrySubdivisionCode,
      serviceOptionCode: metadata.serviceOptionCode,
      serviceOptionRoutingCode: metadata.serviceOptionRoutingCode,
      sendAmount: { value: plan.amount, currencyCode: plan.currency },
      receiveCurrencyCode: metadata.receiveCurrencyCode,
    },
    retrySafe: false,
    ...settings(call),
  };
}

/** The quote a transfer continues with: its transaction id and the service option the update must repeat. */
export interface QuotedTransfer {
  transactionId: string;
  serviceOptionCode: string | undefined;
  serviceOptionRoutingCode: string | undefined;
}

/** Transfer step 2, the update: sender, receiver and compliance data. Retried with the same request id. */
export function updateRequest(plan: TransferPlan, quote: QuotedTransfer, call: CallSettings): ProviderCall {
  const { metadata, additionalDetails } = plan;
  return {
    call: 'PUT /transfer/v1/transactions/{transactionId}',
    method: 'PUT',
    path: path`/transfer/v1/transactions/${quote.transactionId}`,
    json: {
      ...plan.identity,
      destinationCountryCode: plan.destinationCountryCode,
      destinationCountrySubdivisionCode: metadata.destinationCountrySubdivisionCode,
      serviceOptionCode: quote.serviceOptionCode,
      serviceOptionRoutingCode: quote.serviceOptionRoutingCode,
      sendAmount: { value: plan.amount, currencyCode: plan.currency },
      receiveCurrencyCode: metadata.receiveCurrencyCode,
      sender: metadata.sender,
      receiver: metadata.receiver,
      transactionInformation: metadata.transactionInformation,
      fundingSource: metadata.fundingSource,
      targetAccountProfileId: metadata.targetAccountProfileId,
      targetAccount: metadata.targetAccount,
      partnerTransactionId: metadata.partnerTransactionId,
      additionalDetails: Object.keys(additionalDetails).length > 0 ? additionalDetails : undefined,
    },
    retrySafe: true,
    ...settings(call),
  };
}

/** Transfer step 3, the commit: moves the money. Retried with the same request id, processed once. */
export function commitRequest(plan: TransferPlan, transactionId: string, call: CallSettings): ProviderCall {
  return {
    call: 'PUT /transfer/v1/transactions/{transactionId}/commit',
    method: 'PUT',
    path: path`/transfer/v1/transactions/${transactionId}/commit`,
    json: { ...plan.identity, fundingSource: plan.metadata.fundingSource },
    retrySafe: true,
    // Retry-safe only because the provider replays a repeated request id; it moves money all the same.
    movesMoney: true,
    ...settings(call),
  };
}

/** The status read (docs/providers/provider-t.md#status): identity fields in the query. */
export function statusRequest(
  transactionId: string,
  identity: ProviderTIdentity,
  call: CallSettings,
): ProviderCall {
  return {
    call: 'GET /status/v1/transactions/{transactionId}',
    method: 'GET',
    path: path`/status/v1/transactions/${transactionId}`,
    query: { ...readIdentity(identity) },
    retrySafe: true,
    ...settings(call),
  };
}

/** The identity fields a read takes (no operator or point of sale). */
function readIdentity(identity: ProviderTIdentity): ProviderTIdentity {
  return {
    targetAudience: identity.targetAudience,
    agentPartnerId: identity.agentPartnerId,
    userLanguage: identity.userLanguage,
  };
}

/** Amendment step 1: the amend id and the current receiver name. */
export function amendReadRequest(transactionId: string, plan: AmendPlan, call: CallSettings): ProviderCall {
  return {
    call: 'GET /amend/v1/transactions/{transactionId}',
    method: 'GET',
    path: path`/amend/v1/transactions/${transactionId}`,
    query: { ...plan.identity },
    retrySafe: true,
    ...settings(call),
  };
}

/** Amendment step 2: the new name (first and last are required by the provider). */
export function amendNameRequest(
  transactionId: string,
  plan: AmendPlan,
  amendId: string,
  name: Record<string, string | undefined>,
  call: CallSettings,
): ProviderCall {
  return {
    call: 'PATCH /amend/v1/transactions/{transactionId}/receiver/name',
    method: 'PATCH',
    path: path`/amend/v1/transactions/${transactionId}/receiver/name`,
    json: { ...plan.identity, amendId, name },
    // Setting the same name twice changes nothing and moves no money; the provider replays by request id.
    retrySafe: true,
    ...settings(call),
  };
}

/** Refund step 1: the refund id and the refundable amount. */
export function refundReadRequest(plan: RefundPlan, call: CallSettings): ProviderCall {
  return {
    call: 'GET /refund/v2/transactions/{transactionId}',
    method: 'GET',
    path: path`/refund/v2/transactions/${plan.transactionId}`,
    query: { ...plan.identity, refundReasonCode: plan.refundReasonCode, refundFee: plan.refundFee },
    retrySafe: true,
    ...settings(call),
  };
}

/** Refund step 2: moves the money back. Retried with the same request id, processed once. */
export function refundCommitRequest(plan: RefundPlan, refundId: string, call: CallSettings): ProviderCall {
  return {
    call: 'PUT /refund/v2/transactions/{transactionId}/commit',
    method: 'PUT',
    path: path`/refund/v2/transactions/${plan.transactionId}/commit`,
    json: { ...plan.identity, refundId },
    retrySafe: true,
    movesMoney: true,
    ...settings(call),
  };
}
