/**
 * What callers put in `provider_metadata` for Provider T (docs/architecture.md#request-fields): the schemas
 * `checks.ts` parses with and `types.ts` infers the public types (and their docs) from.
 */
import { currencySchema } from '@pay/core/adapter';
import * as v from '@pay/core/schema';

export const text = v.pipe(v.string('must be a string'), v.trim(), v.minLength(1, 'must not be empty'));
const optionalText = v.optional(text);
const optionalString = v.optional(v.string('must be a string'));
const alpha3 = v.pipe(
  v.string('must be a string'),
  v.regex(/^[A-Za-z]{3}$/, 'must be an ISO 3166 alpha-3 country code'),
  v.toUpperCase(),
);

export const nameSchema = v.looseObject({
  firstName: text,
  middleName: optionalText,
  lastName: text,
  secondLastName: optionalText,
});
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

export const receiverSchema = v.looseObject({
  name: nameSchema,
  address: v.optional(addressSchema),
  mobilePhone: v.optional(phoneSchema),
});

export const transactionInformationSchema = v.looseObject({
  purposeOfTransactionCode: optionalString,
  sourceOfFundsCode: optionalString,
  proofOfFundsCode: optionalString,
  relationshipToReceiver: optionalString,
});

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
/** `provider_metadata` of `checkouts.create`: `checkTransfer` checks amount and currency as a payment's. */
export const checkoutMetadataSchema = v.strictObject({
  ...transferEntries,
  amount: v.custom<number>(() => true),
  currency: v.custom<string>(() => true),
});
export const updateMetadataSchema = v.strictObject({
  ...identityEntries,
  receiverFirstName: optionalText,
  receiverLastName: optionalText,
});
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
