/** The errors of webhook handling (docs/architecture.md#webhook-handler), with the HTTP status to answer. */
import { PayError, type PayErrorOptions } from '../errors.js';

/** Why a webhook was refused. */
export type WebhookFailureReason =
  | 'raw_body_required'
  | 'missing_signature'
  | 'invalid_signature'
  | 'stale_timestamp'
  | 'invalid_secret'
  | 'merchant_mismatch'
  | 'malformed_payload'
  | 'unconfirmed_status'
  | 'confirmation_failed'
  | 'missing_secret'
  /** A webhook setting the signature covers is not configured (retryable: 503, so nothing is lost meanwhile). */
  | 'missing_host'
  /** The delivery is for the other mode (test or live) than the handler serves: not this deployment's (400). */
  | 'mode_mismatch'
  /** Another attempt of the same delivery holds its deduplication lease (retryable: 503). */
  | 'delivery_in_progress'
  /** The deduplication store could not be reached (retryable: 503). */
  | 'deduplication_unavailable'
  /** An unexpected exception (not a `PayError`) escaped verification: a bug, answered retryably (503). */
  | 'internal_error';

/** A webhook failed verification or could not be read. Nothing was dispatched. */
export class WebhookVerificationError extends PayError {
  static override readonly kind = 'WebhookVerificationError';
  override readonly code = 'webhook_verification_failed';
  readonly reason: WebhookFailureReason;
  /** True when the provider should deliver again later (the reply is then 503). */
  readonly retryable: boolean;
  /** HTTP status a webhook endpoint should answer with. */
  readonly status: 400 | 503;

  constructor(
    message: string,
    options: PayErrorOptions & { reason: WebhookFailureReason; retryable?: boolean },
  ) {
    super(message, options);
    this.reason = options.reason;
    this.retryable = options.retryable ?? false;
    this.status = this.retryable ? 503 : 400;
  }
}

/** One or more webhook callbacks threw. Every callback ran; the errors are all here. */
export class WebhookHandlerError extends PayError {
  static override readonly kind = 'WebhookHandlerError';
  override readonly code = 'webhook_handler_failed';
  readonly errors: unknown[];
  /** The verified events of the delivery. */
  readonly events: readonly unknown[];
  readonly status = 500;

  constructor(errors: unknown[], events: readonly unknown[]) {
    super(
      `${errors.length} webhook callback(s) threw; every other callback still ran. See .errors; the provider will redeliver on a 500.`,
      { cause: errors[0] },
    );
    this.errors = errors;
    this.events = events;
  }
}
