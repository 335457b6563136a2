/**
 * The errors of the idempotency ledger and the shared stores (docs/architecture.md#idempotency). Drivers quote the
 * connection string they were given, so what a store throws is stripped of credentials before it reaches a message.
 */
import { PayError, type PayErrorOptions } from './errors.js';
import { redact, redactError, SHORT_SECRET_LENGTH } from './redaction.js';

/** What a store was doing when it failed: an idempotency ledger step or a reconciliation store call. */
export type StoreStep = LedgerStep | 'watch' | 'claim' | 'settle' | 'spend' | 'backlog' | 'stale';
type LedgerStep = 'begin' | 'checkpoint' | 'renew' | 'complete' | 'release' | 'abandon' | 'read';

/**
 * A shared store failed or could not be reached, or an attempt lost its lease on a key
 * (docs/architecture.md#idempotency). Before a money-moving call it means nothing was sent (fail closed); the
 * message says which. Connection strings and passwords are redacted from the message and the whole `cause` chain.
 */
export class StoreError extends PayError {
  static override readonly kind = 'StoreError';
  override readonly code = 'store_unavailable';
  /** What the store was asked to do. */
  readonly step: StoreStep;
  /** `unavailable`: the store failed. `lease_lost`: another attempt took the key over (the store answered). */
  readonly reason: 'unavailable' | 'lease_lost';
  /** True: the same call may succeed once the store answers again (or the other attempt finished). */
  readonly retryable = true;

  constructor(
    message: string,
    options: PayErrorOptions & { step: StoreStep; reason?: 'unavailable' | 'lease_lost' },
  ) {
    const secrets = storeSecretsIn(message, options.cause);
    const cause = options.cause === undefined ? undefined : redactError(options.cause, secrets);
    super(redactConnectionStrings(redact(message, secrets)), {
      ...(cause === undefined ? {} : { cause }),
      ...(options.context ? { context: options.context } : {}),
    });
    this.step = options.step;
    this.reason = options.reason ?? 'unavailable';
  }
}

/** A short, credential-free description of what a store threw, for a {@link StoreError} message. */
export function describeStoreFailure(error: unknown): string {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  const text = error instanceof Error ? error.message : String(error);
  const detail = redactConnectionStrings(redact(text, storeSecretsIn(text, error)));
  const firstLine = detail.split('\n')[0]?.slice(0, 300) ?? '';
  return typeof code === 'string' && !firstLine.includes(code) ? `${code}: ${firstLine}` : firstLine;
}

/** `scheme://user:password@host` → `scheme://[REDACTED]@host`; `password=…` members → `password=[REDACTED]`. */
function redactConnectionStrings(text: string): string {
  return text
    .replace(/([a-z][a-z0-9+.-]*:\/\/)[^\s/@]*@/gi, '$1[REDACTED]@')
    .replace(
      /\b(password|passwd|pwd|pass|secret|token|auth)(["']?\s*[:=]\s*["']?)[^\s"',;&]+/gi,
      '$1$2[REDACTED]',
    );
}

/** Credentials a store failure may spell out: connection-URL user-info and `password=` members, with its causes. */
function storeSecretsIn(message: string, cause: unknown): string[] {
  const texts = [message];
  for (
    let current = cause as { message?: unknown; stack?: unknown; cause?: unknown } | undefined, depth = 0;
    current !== null && current !== undefined && depth < 6;
    depth++
  ) {
    if (typeof current === 'string') texts.push(current);
    if (typeof current.message === 'string') texts.push(current.message);
    if (typeof current.stack === 'string') texts.push(current.stack);
    if (typeof current !== 'object') break;
    current = current.cause as typeof current;
  }
  const secrets: string[] = [];
  for (const text of texts) {
    for (const match of text.matchAll(/[a-z][a-z0-9+.-]*:\/\/([^\s/@]*)@/gi)) {
      const userInfo = match[1] ?? '';
      const colon = userInfo.indexOf(':');
      secrets.push(userInfo);
      if (colon >= 0) secrets.push(userInfo.slice(colon + 1));
      try {
        if (colon >= 0) secrets.push(decodeURIComponent(userInfo.slice(colon + 1)));
      } catch {
        // A malformed escape: the raw spelling is redacted already.
      }
    }
    for (const match of text.matchAll(/\b(?:password|passwd|pwd|pass)["']?\s*[:=]\s*["']?([^\s"',;&]+)/gi))
      secrets.push(match[1] ?? '');
  }
  return secrets.filter((secret) => secret.length >= SHORT_SECRET_LENGTH);
}

/** The idempotency key was used before with a different request (another operation or other input). */
export class IdempotencyKeyMismatchError extends PayError {
  static override readonly kind = 'IdempotencyKeyMismatchError';
  override readonly code = 'idempotency_key_mismatch';
  readonly idempotencyKey: string;
  readonly retryable = false;

  constructor(fields: { idempotencyKey: string; operation: string }, options: PayErrorOptions = {}) {
    super(
      `${fields.operation}: the idempotency key was already used with a different request (another operation or other input); nothing was sent. Use a new key for a new request, or repeat the original request exactly.`,
      { ...options, context: { ...options.context, idempotencyKey: fields.idempotencyKey } },
    );
    this.idempotencyKey = fields.idempotencyKey;
  }
}

/** Another attempt with the same idempotency key is still running (or crashed and its lease has not run out). */
export class IdempotencyInProgressError extends PayError {
  static override readonly kind = 'IdempotencyInProgressError';
  override readonly code = 'idempotency_in_progress';
  readonly idempotencyKey: string;
  /** True: call again with the same key later; it returns that attempt's result or resumes after it. */
  readonly retryable = true;

  constructor(fields: { idempotencyKey: string; operation: string }, options: PayErrorOptions = {}) {
    super(
      `${fields.operation}: another attempt with this idempotency key is in progress; nothing was sent by this one. Call again with the same key in a few seconds: it returns that attempt's result, or resumes where it stopped once its lease runs out.`,
      { ...options, context: { ...options.context, idempotencyKey: fields.idempotencyKey } },
    );
    this.idempotencyKey = fields.idempotencyKey;
  }
}
