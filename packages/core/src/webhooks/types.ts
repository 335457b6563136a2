/** Webhook types shared by the handler and the adapters (docs/architecture.md#webhook-handler). */
import * as v from 'valibot';
import type { AdapterTypes, SupportedEvents } from '../operations.js';
import type { Invoice, Payment, ProviderName, Refund, Subscription } from '../records.js';
import { mismatchedFields } from '../validation.js';
import { WebhookVerificationError } from './errors.js';

/** Normalised event names and the record each carries as `data`. */
export interface NormalisedEvents {
  'payment.created': Payment;
  'payment.updated': Payment;
  'payment.succeeded': Payment;
  'payment.failed': Payment;
  'invoice.generated': Invoice;
  'refund.created': Refund;
  'subscription.created': Subscription;
  'subscription.canceled': Subscription;
  'subscription.updated': Subscription;
}

/** A normalised event name. */
export type NormalisedEventName = keyof NormalisedEvents;

/** Every normalised event name, for registration checks. */
export const NORMALISED_EVENT_NAMES: readonly NormalisedEventName[] = [
  'payment.created',
  'payment.updated',
  'payment.succeeded',
  'payment.failed',
  'invoice.generated',
  'refund.created',
  'subscription.created',
  'subscription.canceled',
  'subscription.updated',
];

/**
 * The normalised events the adapter raises (its declared `events`, every one when it declares none) plus its raw
 * events: what `.on()` accepts.
 */
export type EventMap<T extends AdapterTypes> = Pick<NormalisedEvents, SupportedEvents<T>> & T['rawEvents'];

/**
 * The envelope every callback receives, the same for normalised and raw events. `id` is deterministic: the
 * same on a redelivery of the same webhook, unique within one delivery.
 */
export interface PayEvent<Type extends string = string, Data = unknown> {
  id: string;
  type: Type;
  /** Epoch milliseconds: the provider's event time when it gives one, else when the delivery was verified. */
  created: number;
  provider: ProviderName;
  data: Data;
  /** True for `providerX.*` events whose `data` is the provider payload. */
  is_raw: boolean;
}

/** One event of an adapter's event map, typed by name. */
export type EventOf<T extends AdapterTypes, K extends keyof EventMap<T>> = PayEvent<
  K & string,
  EventMap<T>[K]
>;

/** A webhook as the adapter's verifier receives it: the raw body and lower-cased header names. */
export interface WebhookDelivery {
  /** The raw body bytes, exactly as received, byte order mark included (signatures are computed on these). */
  rawBody: Uint8Array;
  /**
   * The raw body decoded as UTF-8, without a leading byte order mark: the same text whether the body was passed
   * as a string or as bytes.
   */
  body: string;
  /** Header names in lower case; repeated headers joined with `, `. */
  headers: Readonly<Record<string, string>>;
  fullUrl: string;
}

/**
 * A delivery whose authenticity is proven (signature, secret, merchant, host and partner checks passed; payload
 * parsed), before any upstream call. The handler deduplicates on `key`, then calls `events()`.
 */
export interface AuthenticatedDelivery {
  /**
   * Stable id of this delivery, known after authentication and before any upstream call: identical on
   * redelivery, different for a different push (e.g. `<transactionId>:<pushed status>`).
   */
  key: string;
  /**
   * Any upstream confirmation (status read), then the events in dispatch order. May throw
   * `WebhookVerificationError` (retryable or not) or another `PayError`.
   */
  events(): Promise<PayEvent[]>;
  /**
   * Which credential verified the delivery: its index among the webhook secrets given to `setup()` (Provider T:
   * among its configured public keys), in the order given. During a rotation, an index that no longer shows up
   * is the evidence that the old credential can be retired (docs/architecture.md#credential-rotation).
   */
  secretIndex?: number;
}

/** How an adapter verifies and normalises its webhooks. */
export interface WebhookDefinition {
  /** Raw event names the adapter can raise (`providerR.PAID`, …): `.on()` refuses any other non-normalised name. */
  readonly rawEventNames: readonly string[];
  /**
   * The normalised events the adapter can raise: `.on()` refuses any other normalised name (as the types do when
   * the adapter declares `events`). Left out: every normalised name is accepted.
   */
  readonly eventNames?: readonly NormalisedEventName[];
  /**
   * `required`: `setup()` refuses a missing `webhookSecret`. `unused`: the provider signs with a key of its own
   * and `webhookSecret` is `null`.
   */
  readonly secret: 'required' | 'unused';
  /**
   * Authenticates the delivery with everything that needs no upstream call (signature, secret, merchant, host,
   * partner; payload parsing) and resolves to its deduplication key, a way to read its events and which secret
   * verified it (`secretIndex`). `webhookSecrets` are the secrets given to `setup()` in the caller's order (two
   * while one is rotated; none for `secret: 'unused'`): the delivery is genuine when any one of them verifies it,
   * and every one is checked, each in constant time. Throws `WebhookVerificationError` (or another `PayError`)
   * when anything fails; no callback has run by then. Any other exception is treated as a bug in the adapter and
   * answered retryably (503).
   */
  verify(delivery: WebhookDelivery, webhookSecrets: readonly string[]): Promise<AuthenticatedDelivery>;
}

/** Builds an event whose id is `<key parts…>:<type>`: unique within a delivery, identical on redelivery. */
export function webhookEvent<Type extends string, Data>(fields: {
  key: readonly (string | number)[];
  type: Type;
  provider: ProviderName;
  data: Data;
  created: number;
  is_raw?: boolean;
}): PayEvent<Type, Data> {
  return {
    id: [...fields.key, fields.type].join(':'),
    type: fields.type,
    created: fields.created,
    provider: fields.provider,
    data: fields.data,
    is_raw: fields.is_raw ?? fields.type.startsWith(`${fields.provider}.`),
  };
}

/**
 * Validates a webhook payload against the adapter's lenient schema. A mismatch is a `WebhookVerificationError`
 * with reason `malformed_payload` naming the fields (never their values); nothing is dispatched.
 */
export function parseWebhookPayload<S extends v.GenericSchema>(
  schema: S,
  value: unknown,
  provider: ProviderName,
): v.InferOutput<S> {
  const result = v.safeParse(schema, value, { abortEarly: false });
  if (result.success) return result.output;
  const fields = mismatchedFields(result.issues);
  throw new WebhookVerificationError(
    `The ${provider} webhook payload is malformed: fields ${fields} do not match.`,
    {
      reason: 'malformed_payload',
    },
  );
}
