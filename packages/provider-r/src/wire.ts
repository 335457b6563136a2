/**
 * Provider R's wire contract (`docs/providers/provider-r.md`): the provider's codes and lenient valibot schemas of
 * the replies the adapter reads. Only the fields the mapping reads are required; text and numbers are coerced.
 */
import * as v from '@pay/core/schema';

/** The transaction statuses of Provider R (docs/architecture.md#provider-flows). */
export const PROVIDER_R_STATUSES = ['PENDING', 'AUTHORIZED', 'PAID', 'CANCELLED'] as const;
/** A Provider R transaction status. */
export type ProviderRStatus = (typeof PROVIDER_R_STATUSES)[number];

/** Currencies the provider accepts (docs/providers/provider-r.md#amounts-and-currencies); CZK is the default. */
export const PROVIDER_R_CURRENCIES = ['CZK', 'EUR', 'PLN', 'HUF', 'USD', 'GBP', 'RON', 'NOK', 'SEK'] as const;

/** The provider's reply codes and their meaning. Only `0` is success, whatever the HTTP status. */
export const PROVIDER_R_CODES = {
  0: 'OK',
  1100: 'unknown error',
  1102: 'invalid language',
  1103: 'invalid payment method',
  1104: 'transaction cannot be loaded',
  1107: 'price not supported',
  1200: 'database error',
  1301: 'unknown merchant',
  1303: 'invalid link or language',
  1308: 'payment method not allowed',
  1309: 'wrong amount',
  1310: 'unknown currency',
  1400: 'bad request or unauthorised access',
  1401: 'refund of a cancelled payment',
  1402: 'refund amount too high',
  1500: 'unexpected error',
} as const;

/** The media type of a `content-type` value, lower-cased, parameters dropped. */
export function mediaType(contentType: string | null | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/** Removes the `secret` the status reply echoes, so it never reaches a record, an event or an error. */
export function withoutSecret(fields: Record<string, unknown>): Record<string, unknown> {
  const { secret: _secret, ...rest } = fields;
  return rest;
}

/** Text, also when a JSON body carries a number (`"transId": 123`). */
const text = v.pipe(v.union([v.string(), v.number(), v.boolean()]), v.transform(String));
/** An integer that may arrive as text (`price=10000` in a form body). */
const integer = v.pipe(
  v.union([
    v.pipe(v.number(), v.safeInteger()),
    v.pipe(
      v.string(),
      v.trim(),
      v.regex(/^-?\d+$/, 'must be an integer'),
      v.transform(Number),
      v.safeInteger(),
    ),
  ]),
  v.number(),
);
/** A boolean that may arrive as text (`test=true`). */
const flag = v.pipe(
  v.union([
    v.boolean(),
    v.pipe(
      v.string(),
      v.trim(),
      v.toLowerCase(),
      v.picklist(['true', 'false', '1', '0']),
      v.transform((value) => value === 'true' || value === '1'),
    ),
  ]),
  v.boolean(),
);
/**
 * A status in any letter case, upper-cased; a new one maps to a safe value (docs/architecture.md#lenient-reading).
 */
const status = v.pipe(
  v.string(),
  v.trim(),
  v.toUpperCase(),
  v.minLength(1, 'must not be empty'),
  v.maxLength(64, 'is too long for a status'),
  // Typed as the known statuses, still open to others.
  v.transform((value) => value as ProviderRStatus | (string & {})),
);

/** Every reply's envelope; some published error replies carry the code as `error` (`error=1400&message=…`). */
export const envelopeSchema = v.pipe(
  v.looseObject({
    code: v.optional(integer),
    error: v.optional(integer),
    message: v.optional(text),
  }),
  v.check((reply) => reply.code !== undefined || reply.error !== undefined, 'needs `code` or `error`'),
  v.transform((reply) => ({ code: (reply.code ?? reply.error) as number, message: reply.message })),
);

/** Reply of the checkout and payment creations: the transaction id and the hosted payment page. */
export const createReplySchema = v.looseObject({
  code: v.optional(integer),
  message: v.optional(text),
  transId: v.pipe(text, v.minLength(1, 'must not be empty')),
  redirect: v.pipe(v.string(), v.url()),
});
/** A creation reply as read. */
export type CreateReply = v.InferOutput<typeof createReplySchema>;

/** The v1.0 status reply, form-encoded or JSON, `secret` removed (the `data` of raw events). */
export const statusReplySchema = v.looseObject({
  code: v.optional(integer),
  message: v.optional(text),
  transId: v.pipe(text, v.minLength(1, 'must not be empty')),
  status,
  price: integer,
  curr: v.pipe(text, v.toUpperCase()),
  merchant: v.optional(text),
  test: v.optional(flag),
  label: v.optional(text),
  refId: v.optional(text),
  payerId: v.optional(text),
  method: v.optional(text),
  email: v.optional(text),
  fee: v.optional(text),
});
/** The verified status reply of Provider R (`price` a number, `secret` removed). */
export type ProviderRStatusReply = v.InferOutput<typeof statusReplySchema>;

/**
 * A push's fields the verification reads; a `test` that is not a boolean is absent (the confirmed status decides).
 */
export const pushSchema = v.looseObject({
  transId: v.pipe(text, v.minLength(1, 'must not be empty')),
  status,
  test: v.optional(v.fallback(v.optional(flag), undefined)),
});
