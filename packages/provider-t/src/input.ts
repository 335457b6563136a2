/**
 * What callers put in `provider_metadata` for Provider T, and the checks made before the first upstream call
 * (design §2, §3): every issue the adapter can find without provider data is reported in one
 * `ValidationError`, so nothing is quoted, let alone committed, for a request that cannot succeed.
 */
import {
  amountIssues,
  type CustomerRef,
  currencySchema,
  toValidationIssues,
  type ValidationIssue,
} from '@pay/core';
import * as v from '@pay/core/schema';
import { METADATA_FACT_KEYS } from './mapping.js';

/** A person's name (wire contract `name`). */
export interface ProviderTName {
  firstName: string;
  middleName?: string;
  lastName: string;
  secondLastName?: string;
}

/** A postal address (wire contract `address`). Country codes are ISO 3166 alpha-3 (`USA`, `MEX`). */
export interface ProviderTAddress {
  line1: string;
  line2?: string;
  line3?: string;
  city: string;
  countrySubdivisionCode?: string;
  countryCode: string;
  postalCode?: string;
}

/** The sender: full KYC data on every transfer, since Provider T stores no customers (spec §2). */
export interface ProviderTSender {
  name: ProviderTName;
  address: ProviderTAddress;
  mobilePhone: { number: string; countryDialCode: string };
  email?: string;
  personalDetails: {
    /** `YYYY-MM-DD`. */
    dateOfBirth: string;
    genderCode?: string;
    birthCountryCode?: string;
    citizenshipCountryCode?: string;
    occupationCode?: string;
    [field: string]: unknown;
  };
  primaryIdentification: { typeCode: string; id: string; issueCountryCode: string; [field: string]: unknown };
  profileId?: string;
  [field: string]: unknown;
}

/** The receiver. Its address country is the destination when `destinationCountryCode` is not given. */
export interface ProviderTReceiver {
  name: ProviderTName;
  address?: ProviderTAddress;
  mobilePhone?: { number: string; countryDialCode: string };
  [field: string]: unknown;
}

/** Compliance data the update step enforces (design §8): forwarded when given. */
export interface ProviderTTransactionInformation {
  purposeOfTransactionCode?: string;
  sourceOfFundsCode?: string;
  proofOfFundsCode?: string;
  relationshipToReceiver?: string;
  [field: string]: unknown;
}

/** Identity fields a single call may override (wire contract "Identity fields"). */
export interface ProviderTIdentityOverrides {
  targetAudience?: string;
  agentPartnerId?: string;
  userLanguage?: string;
}

/** `provider_metadata` of `payments.create`. */
export interface ProviderTTransferMetadata extends ProviderTIdentityOverrides {
  sender: ProviderTSender;
  receiver: ProviderTReceiver;
  /** ISO 3166 alpha-3; default: `receiver.address.countryCode`. */
  destinationCountryCode?: string;
  destinationCountrySubdivisionCode?: string;
  /** `WILL_CALL` (cash pickup), `BANK_DEPOSIT`, …; default: the first option the quote offers. */
  serviceOptionCode?: string;
  serviceOptionRoutingCode?: string;
  /** ISO 4217 currency the receiver gets; default: the provider's choice for the destination. */
  receiveCurrencyCode?: string;
  transactionInformation?: ProviderTTransactionInformation;
  fundingSource?: Record<string, unknown>;
  targetAccountProfileId?: string;
  targetAccount?: Record<string, unknown>;
  partnerTransactionId?: string;
  /**
   * Free key/values stored with the transfer; the request's `metadata` is sent here too. A key present in both
   * with different values is refused, so the record shows exactly what the provider stores.
   */
  additionalDetails?: Record<string, string>;
  operatorId?: string;
  posId?: string;
}

/** `provider_metadata` of `checkouts.create`: a transfer, plus its amount and currency (spec §2). */
export interface ProviderTCheckoutMetadata extends ProviderTTransferMetadata {
  /** Major units (`100.5` = 100.50), at most the currency's minor digits. */
  amount: number;
  currency: string;
}

/** `provider_metadata` of `payments.update` / `checkouts.update`: the receiver-name amendment (spec §4). */
export interface ProviderTUpdateMetadata extends ProviderTIdentityOverrides {
  receiverFirstName?: string;
  receiverLastName?: string;
}

/** `provider_metadata` of `refunds.create`. */
export interface ProviderTRefundMetadata extends ProviderTIdentityOverrides {
  /** Enumerated reason (`CUSTOMER_REQUEST`, `INCORRECT_AMT`, `WRONG_RECEIVER`, …); default `CUSTOMER_REQUEST`. */
  refundReasonCode?: string;
  /** Ask the provider to refund the transfer fee too. */
  refundFee?: boolean;
}

const text = v.pipe(v.string('must be a string'), v.trim(), v.minLength(1, 'must not be empty'));
const optionalText = v.optional(text);
const alpha3 = v.pipe(
  v.string('must be a string'),
  v.regex(/^[A-Za-z]{3}$/, 'must be an ISO 3166 alpha-3 country code'),
  v.toUpperCase(),
);

const nameSchema = v.looseObject({
  firstName: text,
  middleName: optionalText,
  lastName: text,
  secondLastName: optionalText,
});
const addressSchema = v.looseObject({
  line1: text,
  line2: optionalText,
  line3: optionalText,
  city: text,
  countrySubdivisionCode: optionalText,
  countryCode: text,
  postalCode: optionalText,
});
const phoneSchema = v.looseObject({ number: text, countryDialCode: text });

const senderSchema = v.looseObject({
  name: nameSchema,
  address: addressSchema,
  mobilePhone: phoneSchema,
  email: v.optional(v.pipe(v.string(), v.email('must be an e-mail address'))),
  personalDetails: v.looseObject({
    dateOfBirth: v.pipe(v.string('must be a string'), v.isoDate('must be a date as YYYY-MM-DD')),
  }),
  primaryIdentification: v.looseObject({ typeCode: text, id: text, issueCountryCode: text }),
  profileId: optionalText,
});

const receiverSchema = v.looseObject({
  name: nameSchema,
  address: v.optional(addressSchema),
  mobilePhone: v.optional(phoneSchema),
});

const identityEntries = {
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
  destinationCountryCode: v.optional(alpha3),
  destinationCountrySubdivisionCode: optionalText,
  serviceOptionCode: optionalText,
  serviceOptionRoutingCode: optionalText,
  receiveCurrencyCode: v.optional(currencySchema),
  transactionInformation: v.optional(v.looseObject({})),
  fundingSource: v.optional(objectRecord),
  targetAccountProfileId: optionalText,
  targetAccount: v.optional(objectRecord),
  partnerTransactionId: optionalText,
  additionalDetails: v.optional(stringRecord),
  operatorId: optionalText,
  posId: optionalText,
};

/** `provider_metadata` of `payments.create`. Unknown members are refused: a misspelt one would be lost. */
export const transferMetadataSchema = v.strictObject(transferEntries);
/** `provider_metadata` of `checkouts.create`. */
// The amount and currency are checked with the rest of the transfer (planTransfer), as a payment's top-level ones are.
export const checkoutMetadataSchema = v.strictObject({
  ...transferEntries,
  amount: v.optional(v.unknown()),
  currency: v.optional(v.unknown()),
});
/** `provider_metadata` of the updates. */
export const updateMetadataSchema = v.strictObject({
  ...identityEntries,
  receiverFirstName: optionalText,
  receiverLastName: optionalText,
});
/** `provider_metadata` of `refunds.create`. */
export const refundMetadataSchema = v.strictObject({
  ...identityEntries,
  refundReasonCode: v.optional(
    v.pipe(text, v.regex(/^[A-Z][A-Z0-9_]*$/, 'must be an upper-case reason code')),
  ),
  refundFee: v.optional(v.boolean('must be true or false')),
});

/** A parsed transfer `provider_metadata`. */
export type TransferMetadata = v.InferOutput<typeof transferMetadataSchema>;

/** Validates `input`, returning the output or the issues (valibot's missing-key text made readable). */
export function check<S extends v.GenericSchema>(
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

/** Everything a transfer needs, checked: what the quote, update and commit steps send, and what the record echoes. */
export interface TransferPlan {
  amount: number;
  currency: string;
  destinationCountryCode: string;
  metadata: TransferMetadata;
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
  /** The amount as given (top level for a payment, `provider_metadata.amount` for a checkout), unchecked. */
  amount?: unknown;
  /** The currency as given, unchecked. */
  currency?: unknown;
  provider_metadata?: unknown;
  metadata?: Record<string, string> | undefined;
  customer?: CustomerRef | undefined;
  item_id?: string | undefined;
  quantity?: number | undefined;
}

/**
 * Checks a transfer request completely: sender and receiver (spec §2: required on every call), amount in
 * major units with the currency's minor digits, currency, and a destination country. Returns the plan, or
 * every issue found for the caller to throw as one `ValidationError`.
 */
export function planTransfer(
  input: TransferInput,
  metadataSchema: typeof transferMetadataSchema | typeof checkoutMetadataSchema,
  where: { amount: string; currency: string },
): { plan: TransferPlan; issues: [] } | { plan: undefined; issues: ValidationIssue[] } {
  const { output: metadata, issues } = check(
    metadataSchema,
    input.provider_metadata ?? {},
    'provider_metadata',
  );
  const currency = check(currencySchema, input.currency, where.currency);
  if (input.currency === undefined) {
    issues.push({
      path: where.currency,
      message: 'is required: Provider T needs the currency of the amount sent',
    });
  } else {
    issues.push(...currency.issues);
  }
  if (input.amount === undefined) issues.push({ path: where.amount, message: 'is required' });
  else issues.push(...amountIssues(input.amount, where.amount, { unit: 'major', currency: currency.output }));
  const destination = metadata && destinationOf(metadata, issues);
  const additionalDetails = mergedDetails(input.metadata ?? {}, metadata?.additionalDetails ?? {}, issues);
  if (
    issues.length > 0 ||
    !metadata ||
    !destination ||
    typeof input.amount !== 'number' ||
    !currency.output
  ) {
    return { plan: undefined, issues };
  }
  const {
    amount: _amount,
    currency: _currency,
    ...transfer
  } = metadata as TransferMetadata & { amount?: unknown; currency?: unknown };
  return {
    plan: {
      amount: input.amount,
      currency: currency.output,
      destinationCountryCode: destination,
      metadata: transfer,
      additionalDetails,
      customer: input.customer ?? null,
      itemId: input.item_id ?? null,
      quantity: input.quantity ?? 1,
    },
    issues: [],
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
 * record show another (issue 11 §3).
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
