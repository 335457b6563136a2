/**
 * The one error tree of `@pay/core` (docs/architecture.md#errors): a stable `code`, optional `context`, ES2022
 * `cause`, and a message that says what to do next. No secret ever enters a message or a property (redaction.ts).
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

/** What a caller is told when a refused money-moving call may have been processed (docs/architecture.md#outcomes). */
export const RECONCILE_ADVICE =
  'the provider may have processed an earlier attempt: look it up with retrievePayment before sending again';

/** What kind of refusal a {@link ProviderApiError} is, whatever the provider's codes (docs/architecture.md#provider-client). */
export type ProviderErrorKind =
  | 'authentication'
  | 'invalid_request'
  | 'not_found'
  | 'conflict'
  | 'rate_limited'
  | 'provider_unavailable'
  | 'declined';

/** The kind an HTTP status implies when the adapter's error table does not list the provider's code. */
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
   * `'unknown'` when an earlier attempt of this call may have reached the provider: the message then ends with
   * {@link RECONCILE_ADVICE} and the error is not retryable, since repeating the call could move money twice.
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
  /** The kind of refusal: from the adapter's error table, else from the HTTP status ({@link providerErrorKindOf}). */
  readonly kind: ProviderErrorKind;
  /** `'unknown'`: an earlier attempt may have been processed; reconcile before sending again. Else absent. */
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
   * The same provider answer with another message, the context of the operation it happened in, and/or
   * `outcome: 'unknown'` when an earlier attempt may have landed; this error becomes the `cause`.
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

/** Outside the class body: a class that names itself inside it is renamed by the bundler (`_ProviderApiError`). */
function withProviderApiDetails(error: ProviderApiError, details: ProviderApiErrorDetails): ProviderApiError {
  const outcome = details.outcome ?? error.outcome;
  return new ProviderApiError(
    { ...error, message: details.message ?? error.message },
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
