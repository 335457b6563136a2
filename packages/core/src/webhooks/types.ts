/** Webhook types shared by the handler and the adapters (docs/architecture.md#webhook-handler). */
import * as v from 'valibot';
import type { NormalisedEventName, NormalisedEvents } from '../normalised-events.js';
import type { AdapterTypes, SupportedEvents } from '../operations.js';
import type { ProviderName } from '../records.js';
import { mismatchedFields } from '../validation.js';
import { WebhookVerificationError } from './errors.js';

export type { NormalisedEventName, NormalisedEvents } from '../normalised-events.js';

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

/** What `.on()` accepts: the normalised events the adapter raises (all when it declares none), its raw ones. */
export type EventMap<T extends AdapterTypes> = Pick<NormalisedEvents, SupportedEvents<T>> & T['rawEvents'];

/** The envelope every callback receives. `id` is the same on a redelivery, unique within one delivery. */
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
  /** The raw body decoded as UTF-8, without a leading byte order mark (whether passed as a string or as bytes). */
  body: string;
  /** Header names in lower case; repeated headers joined with `, `. */
  headers: Readonly<Record<string, string>>;
  fullUrl: string;
}

/** A delivery whose authenticity is proven, before any upstream call: deduplicated on `key`, then `events()`. */
export interface AuthenticatedDelivery {
  /** Stable id of this delivery: identical on redelivery, different for another push (`<id>:<status>`). */
  key: string;
  /** Any upstream confirmation, then the events in dispatch order; may throw any `PayError`. */
  events(): Promise<PayEvent[]>;
  /**
   * Which credential verified the delivery: its index among `setup()`'s webhook secrets (Provider T: its public
   * keys); once one no longer shows up it can retire (docs/architecture.md#credential-rotation).
   */
  secretIndex?: number;
}

/** How an adapter verifies and normalises its webhooks. */
export interface WebhookDefinition {
  /** Raw event names the adapter can raise (`providerR.PAID`, …): `.on()` refuses any other non-normalised name. */
  readonly rawEventNames: readonly string[];
  /** The normalised events the adapter can raise (`.on()` refuses any other); left out: every one. */
  readonly eventNames?: readonly NormalisedEventName[];
  /** `required`: `setup()` refuses a missing `webhookSecret`; `unused`: the provider signs with its own key. */
  readonly secret: 'required' | 'unused';
  /**
   * Authenticates the delivery with everything that needs no upstream call (signature, secret, merchant, host,
   * partner; payload) and resolves to its deduplication key, its events and `secretIndex`: genuine when any one of
   * `webhookSecrets` (`setup()`'s, in order) verifies it, every one checked in constant time. Throws a `PayError`;
   * any other exception is an adapter bug, answered 503.
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

/** Validates a webhook payload; a mismatch is `malformed_payload` naming the fields (never their values). */
export function parseWebhookPayload<S extends v.GenericSchema>(
  schema: S,
  value: unknown,
  provider: ProviderName,
): v.InferOutput<S> {
  const result = v.safeParse(schema, value, { abortEarly: false });
  if (result.success) return result.output;
  throw new WebhookVerificationError(
    `The ${provider} webhook payload is malformed: fields ${mismatchedFields(result.issues)} do not match.`,
    { reason: 'malformed_payload' },
  );
}

/** What `handle()` takes: the raw body, the request headers and the full URL the request was sent to. */
export interface WebhookRequest {
  /** The raw request body, exactly as received: a string or bytes, never a parsed object. */
  body: string | Uint8Array;
  headersAsObject: Record<string, string | readonly string[] | undefined> | Headers;
  fullUrl: string;
}

/** What `handle()` resolves to. */
export interface WebhookResult {
  /** Every verified event of the delivery, in dispatch order (empty when the delivery was a duplicate). */
  events: PayEvent[];
  /**
   * Keys skipped as done: a processed delivery's (`AuthenticatedDelivery.key`) and the transition keys
   * (`<provider>:transition:<kind>:<id>:<event>:<status>`) of events already run
   * (docs/architecture.md#reconciliation).
   */
  duplicates: string[];
}

/** A callback registered with `.on()`. */
export type WebhookCallback<E> = (event: E) => unknown;
