/**
 * The one error tree of `@pay/core` (docs/architecture.md#errors). Every class carries a stable `code`, optional `context`, ES2022
 * `cause`, and a message that says what to do next. `isInstance` works across duplicated copies of the package
 * (an app that ends up with two copies of core still recognises its errors) and follows inheritance.
 *
 * No secret, token or Authorization header ever enters a message or a property: adapters pass values through
 * {@link redact} and the HTTP client never copies request headers into an error.
 */

/** Brand shared by every copy of this package: the list of error kinds an instance belongs to. */
const KINDS = Symbol.for('@pay/core.error-kinds');

/** Where a multi-step operation stopped, and what else helps a caller reconcile. */
export type ErrorContext = Record<string, unknown>;

/** Options every error of the tree accepts. */
export interface PayErrorOptions {
  cause?: unknown;
  context?: ErrorContext;
}

/** The base of every error thrown by `@pay/*`. */
export class PayError extends Error {
  /** Error kind used by `isInstance`; each subclass names its own. */
  static readonly kind: string = 'PayError';
  /** Stable, machine-readable code to branch on. */
  readonly code: string = 'pay_error';
  /** Where a multi-step operation stopped (Provider T: `{ transactionId, step, outcome? }`), when known. */
  readonly context: ErrorContext | undefined;
  declare readonly [KINDS]: readonly string[];

  constructor(message: string, options: PayErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    // The declared kind, not `new.target.name`: a bundler may rename a class that refers to itself
    // (`_ProviderApiError`), and `error.name` is what every log line shows.
    this.name = Object.hasOwn(new.target, 'kind') ? (new.target as typeof PayError).kind : new.target.name;
    this.context = options.context;
    const kinds: string[] = [];
    for (
      let ctor = new.target as unknown;
      typeof ctor === 'function' && 'kind' in ctor;
      ctor = Object.getPrototypeOf(ctor)
    ) {
      if (Object.hasOwn(ctor, 'kind')) kinds.push((ctor as typeof PayError).kind);
    }
    Object.defineProperty(this, KINDS, { value: Object.freeze(kinds), enumerable: false });
  }

  /**
   * True when `error` is an instance of this class or one of its subclasses, even when it was thrown by another
   * copy of `@pay/core`. `PayError.isInstance` matches every error of the tree; sibling classes never match.
   */
  static isInstance<T extends abstract new (...args: never[]) => PayError>(
    this: T,
    error: unknown,
  ): error is InstanceType<T> {
    const kinds = (error as { [KINDS]?: unknown } | null | undefined)?.[KINDS];
    // `this` is the class isInstance was called on (ValidationError.isInstance → 'ValidationError').
    // biome-ignore lint/complexity/noThisInStatic: the receiver class decides which kind is checked.
    return Array.isArray(kinds) && kinds.includes((this as unknown as typeof PayError).kind);
  }

  /** A JSON view without the stack, safe to log: it holds no secret. */
  toJSON(): Record<string, unknown> {
    const { stack: _stack, ...fields } = Object.fromEntries(Object.entries(this));
    return { name: this.name, message: this.message, ...fields };
  }
}

/** Missing or invalid configuration or environment. */
export class ConfigurationError extends PayError {
  static override readonly kind = 'ConfigurationError';
  override readonly code = 'configuration_error';
  /** Environment variables (or config members) that were missing or invalid. */
  readonly missing: string[];

  constructor(message: string, options: PayErrorOptions & { missing?: string[] } = {}) {
    super(message, options);
    this.missing = options.missing ?? [];
  }
}

/** One problem found in request input. */
export interface ValidationIssue {
  /** Dotted path of the offending field, e.g. `provider_metadata.sender.name.lastName`. */
  path: string;
  message: string;
}

/** Bad request input, raised before any call that could move money. */
export class ValidationError extends PayError {
  static override readonly kind = 'ValidationError';
  override readonly code = 'validation_error';
  readonly issues: ValidationIssue[];

  constructor(issues: ValidationIssue[], options: PayErrorOptions & { operation?: string } = {}) {
    const where = options.operation ? `${options.operation}: ` : '';
    const list = issues.map((issue) => `${issue.path || '(input)'}: ${issue.message}`).join('; ');
    super(`${where}invalid input; fix these fields and call again: ${list}`, options);
    this.issues = issues;
  }
}

/** The configured provider cannot perform the operation. Thrown before validation and before any I/O. */
export class ProviderNotSupportedError extends PayError {
  static override readonly kind = 'ProviderNotSupportedError';
  override readonly code = 'provider_not_supported';
  readonly provider: string;
  readonly operation: string;
  readonly reason: string;

  constructor(
    fields: { provider: string; operation: string; reason: string },
    options: PayErrorOptions = {},
  ) {
    super(
      `${fields.provider} does not support ${fields.operation}: ${fields.reason}. Check pay.supports('${fields.operation}') before calling it.`,
      options,
    );
    this.provider = fields.provider;
    this.operation = fields.operation;
    this.reason = fields.reason;
  }
}

/**
 * What a caller is told when a money-moving call was refused after an earlier attempt of it may have been
 * processed (docs/architecture.md#outcomes): a later refusal proves nothing about the earlier attempt.
 */
export const RECONCILE_ADVICE =
  'the provider may have processed an earlier attempt: look it up with retrievePayment before sending again';

/**
 * What kind of refusal a {@link ProviderApiError} is, whatever the provider's own codes: applications branch on it
 * without knowing provider codes (docs/architecture.md#provider-client).
 */
export type ProviderErrorKind =
  | 'authentication'
  | 'invalid_request'
  | 'not_found'
  | 'conflict'
  | 'rate_limited'
  | 'provider_unavailable'
  | 'declined';

/**
 * The kind an HTTP status implies when the adapter's error table does not list the provider's code: 401/403
 * authentication, 404 not found, 409 conflict, 429 rate limited, 408 and 5xx provider unavailable (the provider
 * did not get to judge the request), any other status invalid request.
 */
export function providerErrorKindOf(status: number): ProviderErrorKind {
  if (status === 401 || status === 403) return 'authentication';
  if (status === 404) return 'not_found';
  if (status === 409) return 'conflict';
  if (status === 429) return 'rate_limited';
  if (status === 408 || status >= 500) return 'provider_unavailable';
  return 'invalid_request';
}

/** Options of a {@link ProviderApiError} beyond the provider's answer. */
export interface ProviderApiErrorOptions extends PayErrorOptions {
  /**
   * `'unknown'` when an earlier attempt of this call may have reached the provider (see
   * `HttpReply.earlierAttemptMayHaveReached`): the message then ends with {@link RECONCILE_ADVICE} and the error
   * is not retryable, since repeating the call could move money twice.
   */
  outcome?: 'unknown' | undefined;
}

/** The provider answered with an error. */
export class ProviderApiError extends PayError {
  static override readonly kind = 'ProviderApiError';
  override readonly code = 'provider_api_error';
  /** HTTP status of the reply. */
  readonly status: number;
  /** The provider's own error code (e.g. Provider R `1402`, Provider N `R3`). */
  readonly providerCode: string | undefined;
  readonly providerMessage: string | undefined;
  /** The request id sent (or echoed) for this call, to quote to the provider's support. */
  readonly requestId: string | undefined;
  /** True when the same call may succeed later (429, 5xx); always false when `outcome` is `'unknown'`. */
  readonly retryable: boolean;
  /**
   * What kind of refusal this is, portable across providers: from the adapter's error table when it lists the
   * provider's code, else from the HTTP status ({@link providerErrorKindOf}).
   */
  readonly kind: ProviderErrorKind;
  /**
   * `'unknown'`: an earlier attempt of this call may have been processed although this answer refused it.
   * Reconcile (e.g. `retrievePayment`) before sending again. Absent when the answer is all there is.
   */
  declare readonly outcome?: 'unknown';

  /** The provider that answered. */
  readonly provider: string;

  constructor(
    fields: {
      provider: string;
      status: number;
      providerCode?: string | undefined;
      providerMessage?: string | undefined;
      requestId?: string | undefined;
      retryable?: boolean;
      /** Default: the kind the status implies ({@link providerErrorKindOf}). */
      kind?: ProviderErrorKind | undefined;
      message?: string;
    },
    options: ProviderApiErrorOptions = {},
  ) {
    const detail = [fields.providerCode, fields.providerMessage].filter(Boolean).join(' ');
    const unknown = options.outcome === 'unknown';
    const message =
      fields.message ??
      `${fields.provider} answered HTTP ${fields.status}${detail ? ` (${detail})` : ''}. ${
        unknown
          ? 'This refusal proves nothing about an earlier attempt.'
          : fields.retryable
            ? 'This may succeed later; retry with the same input.'
            : 'Check the request against the provider error code.'
      }`;
    super(unknown ? withReconcileAdvice(message) : message, options);
    this.provider = fields.provider;
    this.status = fields.status;
    this.providerCode = fields.providerCode;
    this.providerMessage = fields.providerMessage;
    this.requestId = fields.requestId;
    this.retryable = unknown ? false : (fields.retryable ?? (fields.status === 429 || fields.status >= 500));
    this.kind = fields.kind ?? providerErrorKindOf(fields.status);
    // Only set when known, so toJSON() of an ordinary refusal has no `outcome` key at all.
    if (unknown) Object.defineProperty(this, 'outcome', { value: 'unknown', enumerable: true });
  }

  /**
   * The same provider answer with a message that says what to do about it here, the context of the operation
   * it happened in (e.g. the step of a multi-step operation), and/or `outcome: 'unknown'` when an earlier
   * attempt may have landed; this error becomes the `cause`.
   */
  withDetails(details: ProviderApiErrorDetails): ProviderApiError {
    return withProviderApiDetails(this, details);
  }
}

/** What {@link ProviderApiError.withDetails} may change. */
export interface ProviderApiErrorDetails {
  message?: string;
  context?: ErrorContext;
  outcome?: 'unknown' | undefined;
}

/**
 * `withDetails`, outside the class body: a class that names itself inside its body is renamed by the bundler
 * (`class _ProviderApiError`), and `console.log(error)` would print that name.
 */
function withProviderApiDetails(error: ProviderApiError, details: ProviderApiErrorDetails): ProviderApiError {
  const outcome = details.outcome ?? error.outcome;
  return new ProviderApiError(
    {
      provider: error.provider,
      status: error.status,
      providerCode: error.providerCode,
      providerMessage: error.providerMessage,
      requestId: error.requestId,
      retryable: error.retryable,
      kind: error.kind,
      message: details.message ?? error.message,
    },
    { cause: error, context: details.context ?? error.context, ...(outcome ? { outcome } : {}) },
  );
}

/** Appends the reconcile advice to a message, once. */
function withReconcileAdvice(message: string): string {
  if (message.toLowerCase().includes(RECONCILE_ADVICE.toLowerCase())) return message;
  const sentence = RECONCILE_ADVICE.charAt(0).toUpperCase() + RECONCILE_ADVICE.slice(1);
  return `${message.trimEnd()} ${sentence}.`;
}

/** No usable answer arrived. `outcome` tells whether the request may have reached the provider. */
export class NetworkError extends PayError {
  static override readonly kind = 'NetworkError';
  override readonly code = 'network_error';
  /** `not_sent`: the provider never saw it. `unknown`: it may have been processed; reconcile before repeating. */
  readonly outcome: 'not_sent' | 'unknown';

  constructor(message: string, options: PayErrorOptions & { outcome: 'not_sent' | 'unknown' }) {
    super(message, options);
    this.outcome = options.outcome;
  }
}

/** The provider's answer does not match its wire contract (docs/providers/). */
export class InvalidResponseError extends PayError {
  static override readonly kind = 'InvalidResponseError';
  override readonly code = 'invalid_response';
}

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
  /**
   * A webhook setting the signature covers is not configured (e.g. the registered host in production), so no
   * delivery can be verified until it is set; answered retryably (503) so nothing is lost meanwhile.
   */
  | 'missing_host'
  /**
   * The delivery is for the other mode than the handler serves (a test payment on a production handler, a live
   * payment on a sandbox handler): not this deployment's to process (400).
   */
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

/** Secrets shorter than this are redacted only where they stand as a whole word (see {@link redact}). */
export const SHORT_SECRET_LENGTH = 4;

/**
 * Replaces every occurrence of each secret in `text` with `[REDACTED]`, in the spellings a secret takes on the
 * wire too (URL- and form-encoded, JSON-escaped, base64). Used on anything that could echo a credential back (an
 * upstream error body, a URL, a request body) before it reaches an error, a hook or a log.
 *
 * A secret shorter than {@link SHORT_SECRET_LENGTH} characters is redacted wherever it stands as a whole word
 * (not next to a letter or digit): redacting `"ab"` inside every word would make every message unreadable,
 * while a credential echoed by a provider stands on its own (`secret=ab`, `"ab"`, `user:ab`). Longer secrets
 * are redacted wherever they occur. Longer secrets go first, so a secret that contains another is removed whole.
 */
export function redact(text: string, secrets: readonly string[]): string {
  return redactSpellings(text, spellingsOfAll(secrets));
}

function redactSpellings(text: string, spellings: readonly string[]): string {
  let result = text;
  for (const spelling of spellings) {
    if (!result.includes(spelling)) continue;
    result =
      spelling.length < SHORT_SECRET_LENGTH
        ? result.replace(wholeWord(spelling), '[REDACTED]')
        : result.split(spelling).join('[REDACTED]');
  }
  return result;
}

/** Every spelling of every secret, longest first, so a secret that contains another is removed whole. */
function spellingsOfAll(secrets: readonly string[]): string[] {
  const all = new Set<string>();
  for (const secret of secrets) {
    if (secret.length > 0) for (const spelling of spellingsOf(secret)) all.add(spelling);
  }
  return [...all].sort((a, b) => b.length - a.length);
}

/** Spellings already computed, per secret (errors are redacted with the same secrets again and again). */
const SPELLINGS = new Map<string, readonly string[]>();
const SPELLINGS_KEPT = 4096;

/** The spellings of a secret on the wire and in logs. */
function spellingsOf(secret: string): readonly string[] {
  const known = SPELLINGS.get(secret);
  if (known) return known;
  const spellings = [
    ...new Set([
      secret,
      encodeURIComponent(secret),
      new URLSearchParams({ s: secret }).toString().slice(2),
      JSON.stringify(secret).slice(1, -1),
      base64(secret),
    ]),
  ];
  if (SPELLINGS.size >= SPELLINGS_KEPT) SPELLINGS.clear();
  SPELLINGS.set(secret, spellings);
  return spellings;
}

function wholeWord(spelling: string): RegExp {
  const escaped = spelling.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![A-Za-z0-9])${escaped}(?![A-Za-z0-9])`, 'g');
}

/** Base64 of the UTF-8 bytes of `text` (Web APIs only: no Buffer). */
function base64(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Decodes base64 to UTF-8 text; `undefined` when it is not base64 of valid UTF-8. */
function fromBase64(text: string): string | undefined {
  try {
    const binary = atob(text);
    return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
}

/** How many sent credentials (rotating access tokens) one client remembers, besides its configured secrets. */
const SENT_CREDENTIALS_KEPT = 256;

/**
 * What one HTTP client must never let out (docs/architecture.md#redaction): its configured secrets and every
 * credential it has sent — each Authorization value, its part after the scheme, and for Basic the decoded
 * `user:secret` and each half — plus every access token it has received. Every live set is known to core, so an
 * error thrown out of any adapter operation is redacted with all of them (see {@link redactError}).
 */
export class CredentialSet {
  readonly #configured: string[];
  readonly #sent = new Set<string>();

  constructor(configured: readonly string[] = []) {
    this.#configured = configured.filter((secret) => typeof secret === 'string' && secret.length > 0);
    LIVE_SETS.add(referenceTo(this));
  }

  /** Remembers a value sent (or received) as a credential. */
  add(value: string): void {
    if (value.length === 0 || this.#sent.has(value)) return;
    this.#sent.add(value);
    if (this.#sent.size > SENT_CREDENTIALS_KEPT) {
      const oldest = this.#sent.values().next().value;
      if (oldest !== undefined) this.#sent.delete(oldest);
    }
  }

  /**
   * Remembers an Authorization header value: the value, its credential after the scheme (`Bearer <token>`),
   * and for a Basic credential the decoded `user:secret` and both halves, since base64 decodes straight to
   * the secret (docs/architecture.md#redaction).
   */
  addAuthorization(headerValue: string): void {
    const value = headerValue.trim();
    this.add(value);
    const credential = value.replace(/^[A-Za-z][\w.-]*\s+/, '');
    if (credential === value) return;
    this.add(credential);
    if (!/^basic$/i.test(value.slice(0, value.length - credential.length).trim())) return;
    const decoded = fromBase64(credential);
    if (decoded === undefined) return;
    this.add(decoded);
    const colon = decoded.indexOf(':');
    if (colon < 0) return;
    this.add(decoded.slice(0, colon));
    this.add(decoded.slice(colon + 1));
  }

  /** The configured secrets and the credentials sent so far. */
  values(): string[] {
    return [...this.#configured, ...this.#sent];
  }
}

/** Every credential set still in use; a set that is garbage-collected drops out by itself. */
const LIVE_SETS = new Set<{ deref(): CredentialSet | undefined }>();

/** How many credential sets are held where the runtime has no `WeakRef` (see {@link referenceTo}). */
const SETS_HELD_WITHOUT_WEAKREF = 64;

/**
 * A weak reference to `set` where the runtime has `WeakRef`. Cloudflare Workers with a compatibility date before
 * 2025-05-05 have none (docs/architecture.md#redaction): there the set is held strongly and only the most recent
 * ones are kept, so an application that builds an adapter per request does not grow without bound; an older
 * client's errors are still redacted with its own set by its HTTP client.
 */
function referenceTo(set: CredentialSet): { deref(): CredentialSet | undefined } {
  if (typeof WeakRef === 'function') return new WeakRef(set);
  if (LIVE_SETS.size >= SETS_HELD_WITHOUT_WEAKREF) {
    const oldest = LIVE_SETS.values().next().value;
    if (oldest !== undefined) LIVE_SETS.delete(oldest);
  }
  return { deref: () => set };
}

/** Every configured secret and sent credential of every live HTTP client in this process. */
export function knownCredentials(): string[] {
  const values = new Set<string>();
  for (const ref of LIVE_SETS) {
    const set = ref.deref();
    if (set) for (const value of set.values()) values.add(value);
    else LIVE_SETS.delete(ref);
  }
  return [...values];
}

/**
 * Removes `secrets` (default: every credential known to core, {@link knownCredentials}) from everything an
 * error carries: message, stack, every own property (`providerMessage`, `providerCode`, `requestId`, …),
 * `context` and the whole `cause` chain, so `toJSON()` and any logger see redacted values only. Errors are
 * rewritten in place (they were made for this failure); plain objects and arrays inside them are replaced
 * by redacted copies, so a caller's own objects are never changed. Returns `error` (a thrown string is
 * returned redacted).
 */
export function redactError<E>(error: E, secrets: readonly string[] = knownCredentials()): E {
  if (secrets.length === 0) return error;
  return redactValue(error, spellingsOfAll(secrets), new Set(), 0) as E;
}

/** `secrets` below are the precomputed spellings ({@link spellingsOfAll}), longest first. */
function redactValue(value: unknown, secrets: readonly string[], seen: Set<unknown>, depth: number): unknown {
  if (typeof value === 'string') return redactSpellings(value, secrets);
  if (value === null || typeof value !== 'object' || depth > 12 || seen.has(value)) return value;
  seen.add(value);
  if (value instanceof Error || KINDS in value) {
    redactErrorFields(value as Error, secrets, seen, depth);
    return value;
  }
  if (Array.isArray(value)) {
    const items = value.map((item) => redactValue(item, secrets, seen, depth + 1));
    return items.some((item, index) => item !== value[index]) ? items : value;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return value;
  let changed = false;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const redactedKey = redactSpellings(key, secrets);
    copy[redactedKey] = redactValue(item, secrets, seen, depth + 1);
    changed ||= redactedKey !== key || copy[redactedKey] !== item;
  }
  return changed ? copy : value;
}

function redactErrorFields(
  error: Error,
  secrets: readonly string[],
  seen: Set<unknown>,
  depth: number,
): void {
  // The stack repeats the message as it was when the error was made: it is rewritten on its own.
  for (const key of new Set([...Object.getOwnPropertyNames(error), 'message', 'stack', 'cause'])) {
    const descriptor = Object.getOwnPropertyDescriptor(error, key);
    if (descriptor?.get && descriptor.set) {
      // Runtimes that keep `stack` as an accessor: read it, and write the redacted text back.
      const text = (error as unknown as Record<string, unknown>)[key];
      if (typeof text === 'string')
        (error as unknown as Record<string, unknown>)[key] = redactSpellings(text, secrets);
      continue;
    }
    if (!descriptor || !('value' in descriptor)) continue;
    const redacted = redactValue(descriptor.value, secrets, seen, depth + 1);
    if (redacted === descriptor.value) continue;
    if (descriptor.writable || descriptor.configurable)
      Object.defineProperty(error, key, { ...descriptor, value: redacted });
  }
}

/** What a store was doing when it failed. */
export type StoreStep = 'begin' | 'checkpoint' | 'renew' | 'complete' | 'release' | 'abandon' | 'read';

/**
 * A shared store (the idempotency ledger, `@pay/store-postgres`, `@pay/store-redis`, or your own) failed or
 * could not be reached, or an attempt lost its lease on a key. Core wraps whatever the store throws in this
 * error (docs/architecture.md#idempotency): before a money-moving call it means nothing was sent (fail closed,
 * safe to call again once the store is back); the message says which. No connection string, password or credential
 * is ever in it: they are redacted from the message and the whole `cause` chain.
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

/**
 * Credentials a store failure may spell out: the user-info of any connection URL and `password=` members in
 * the error, its message and its cause chain (drivers quote the URL they were given).
 */
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
