/**
 * The provider client's types (docs/architecture.md#provider-client): what an adapter declares and sends, and what
 * comes back. Kept apart from the modules that build the client, its logins and its errors, which all read them.
 */
import type * as v from 'valibot';
import type { CallOptions } from '../adapter.js';
import type { ProviderApiError, ProviderErrorKind } from '../errors.js';
import type { AccessToken, RotatingLoginOptions } from '../token.js';
import type { HttpClientOptions, HttpReply, HttpRequest, TransportOptions } from './types.js';

/** What the adapter's reader makes of one reply. It never throws for a refusal. */
export type EnvelopeReading =
  | { ok: true; body: unknown }
  | {
      ok: false;
      /** The provider's own error code, when the reply carries one. */
      code?: string | undefined;
      /** The provider's message (redacted by the client before it enters an error). */
      message?: string | undefined;
      /** More of what the provider said (Provider T's `offendingFields`), copied into the error's context. */
      details?: Record<string, unknown> | undefined;
    };

/** Options of {@link createProviderClient}: the HTTP client's, plus what the adapter knows of its replies. */
export interface ProviderClientOptions<C extends object = never> extends HttpClientOptions {
  /**
   * Reads one reply, whatever its status: `{ ok: true, body }`, or `{ ok: false, … }` for a refusal (an error page
   * included). It may throw `InvalidResponseError` for a reply that is neither (a 2xx without the envelope).
   */
  readEnvelope(reply: HttpReply, call: ProviderCall): EnvelopeReading;
  errors: ProviderErrorTable;
  /**
   * Appended after core's `CREDENTIALS_HINT` when the provider refuses the credentials for good: names the
   * adapter's credential variables, never a value (`Check PROVIDER_N_API_KEY and PROVIDER_N_SECRET_KEY.`).
   */
  credentialsHint?: string;
  /** The reply header naming the provider's own id for a call, which `findReplied` then gives as `requestId`. */
  providerRequestIdHeader?: string;
  /**
   * How every call is authorised (docs/architecture.md#provider-client-auth); a function is read once per call, so
   * replaced credentials apply from the next call, never halfway through one.
   */
  auth?: ProviderAuth | (() => ProviderAuth);
  /**
   * A token login whose credentials rotate (docs/architecture.md#provider-client-auth): the client then has
   * `updateCredentials`, and the login's `secrets` are redacted.
   */
  login?: ProviderLogin<C>;
  /** The adapter's config, whose transport members the client takes whole; members given beside it win. */
  transport?: TransportOptions;
}

/** One call through the provider client. */
export interface ProviderCall extends Omit<HttpRequest, 'retrySafe'> {
  /** Names the call in errors without any value: `'init-transaction'`, `'PUT /v2.0/preauth'`. */
  call: string;
  /** True only when repeating the call cannot move money twice (reads, logins, idempotent PUTs). */
  retrySafe: boolean;
  /**
   * The call can move money (default: `!retrySafe`): a refusal after an attempt that may have reached the
   * provider is then thrown with `outcome: 'unknown'`.
   */
  movesMoney?: boolean;
  /** This call's own authorisation (a login's Basic credentials), instead of the client's `auth` or authoriser. */
  auth?: ProviderAuth;
}

/** What `send` resolved to: the envelope's body, or the provider's refusal. */
export type ProviderOutcome =
  | { ok: true; body: unknown; reply: HttpReply }
  | {
      ok: false;
      error: ProviderApiError;
      /** The provider's code, as the reader found it. */
      code: string | undefined;
      /** The rule of the error table that applied, when one did. */
      rule: ProviderErrorRule | undefined;
      reply: HttpReply;
    };

/** What a read found: the parsed body, the body before parsing (a record's `raw`), the reply and its request id. */
export interface Replied<T> {
  body: T;
  raw: unknown;
  reply: HttpReply;
  /** The provider's own id when `providerRequestIdHeader` names a header the reply carries, else the id sent. */
  requestId: string;
}

/**
 * The client an adapter's operations send through, each call with the operation's context
 * (docs/architecture.md#operation-context).
 */
export interface ProviderClient {
  /** Sends and reads the envelope. Refusals come back as `{ ok: false }` (never thrown); transport failures throw. */
  send(call: ProviderCall, context?: CallOptions): Promise<ProviderOutcome>;
  /** `send`, then throw the refusal, else parse the body with `schema` (`InvalidResponseError` on a mismatch). */
  request<S extends v.GenericSchema>(
    schema: S,
    call: ProviderCall,
    context?: CallOptions,
  ): Promise<v.InferOutput<S>>;
  /**
   * A read: `null` only when the error table's rule says `notFound` and the status is below 500; any other
   * refusal throws, so a proxy's HTML 404 is never taken for "does not exist".
   */
  find<S extends v.GenericSchema>(
    schema: S,
    call: ProviderCall,
    context?: CallOptions,
  ): Promise<v.InferOutput<S> | null>;
  /** `find`, resolving to what a record is built from (see {@link Replied}). */
  findReplied<S extends v.GenericSchema>(
    schema: S,
    call: ProviderCall,
    context?: CallOptions,
  ): Promise<Replied<v.InferOutput<S>> | null>;
  /** Redacts `secrets` from then on too, as the configured ones (see {@link HttpClient.rememberSecrets}). */
  rememberSecrets(secrets: readonly string[]): void;
}

/**
 * How a call is authorised, as data (docs/architecture.md#provider-client-auth): HTTP Basic, a static bearer
 * token, or a static header of the provider's own (`X-Api-Key`). The value sent is redacted everywhere.
 */
export type ProviderAuth =
  | { basic: readonly [user: string, password: string] }
  | { bearer: string }
  | { header: string; value: string };

/**
 * A token login declared in the client config (docs/architecture.md#provider-client-auth): the client logs in
 * with `login(credentials, client)`, sends `Bearer <token>` on every other call, and its `updateCredentials`
 * checks a new set, redacts its `secrets` and swaps it whole.
 */
export interface ProviderLogin<C extends object> extends Omit<RotatingLoginOptions<C>, 'login'> {
  /** The login with one set of credentials (a call through the client, with the call's own `auth`). */
  login(credentials: C, client: ProviderClient): Promise<AccessToken>;
  /** Checks replacement credentials before anything changes (`ConfigurationError` naming a bad member). */
  check(credentials: C): C;
  /** The values of a set to redact from every hook, log line and error. */
  secrets(credentials: C): readonly string[];
}

/** What the adapter's error table says about one provider code. */
export interface ProviderErrorRule {
  /** Portable kind of this refusal; default: the kind the HTTP status implies. */
  kind?: ProviderErrorKind;
  /** Whether the same call may succeed later; default: 429 and 5xx are. */
  retryable?: boolean;
  /**
   * The resource does not exist: `find` resolves to `null` (only for a status below 500: a gateway failure never
   * proves that something is absent). Nothing else makes a read `null`.
   */
  notFound?: boolean;
  /** Only for this HTTP status (Provider N's catch-all `99` means "not found" only with a 404). */
  status?: number;
  /** What to do about this refusal, in the message: `<provider> answered HTTP <status> (code <code>): <advice>`. */
  advice?: string;
  /**
   * Only when the provider's message matches (Provider R's 1400 "Payment not found"); list such rules in an array
   * under the code, most specific first.
   */
  message?: RegExp;
}

/**
 * Provider code → rule, read with own-property checks (a code `constructor` is no rule); among several rules of a
 * code, the first whose `message` and `status` match applies.
 */
export type ProviderErrorTable = Readonly<Record<string, ProviderErrorRule | readonly ProviderErrorRule[]>>;
