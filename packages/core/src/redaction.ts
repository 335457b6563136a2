/**
 * Redaction (docs/architecture.md#redaction): no secret, token or Authorization header ever enters an error, a
 * hook or a log.
 */
import { toBase64, utf8 } from './crypto.js';

/** The brand of every `PayError` (errors.ts), from any copy of `@pay/core`: such an object is redacted as an error. */
const KINDS = Symbol.for('@pay/core.error-kinds');

/** Secrets shorter than this are redacted only where they stand as a whole word (see {@link redact}). */
export const SHORT_SECRET_LENGTH = 4;

/**
 * Replaces every occurrence of each secret in `text` with `[REDACTED]`, in the spellings a secret takes on the
 * wire too (URL- and form-encoded, JSON-escaped, base64). A secret shorter than {@link SHORT_SECRET_LENGTH} is
 * redacted only as a whole word: inside every word it would make messages unreadable, while a credential a
 * provider echoes stands on its own (`secret=ab`).
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
      toBase64(utf8(secret)),
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
 * What one HTTP client must never let out (docs/architecture.md#redaction): its configured secrets, every
 * credential it has sent and every access token it has received. Every live set is known to core, so an error
 * thrown out of any adapter operation is redacted with all of them (see {@link redactError}).
 */
export class CredentialSet {
  readonly #configured: string[];
  readonly #sent = new Set<string>();
  #lastAuthorization: { header: string; parts: readonly string[] } | undefined;

  constructor(configured: readonly string[] = []) {
    this.#configured = configured.filter((secret) => typeof secret === 'string' && secret.length > 0);
    LIVE_SETS.add(referenceTo(this));
    if (LIVE_SETS.size >= sweepAt) sweepLiveSets();
  }

  /** Remembers a value sent (or received) as a credential. */
  add(value: string): void {
    if (value.length === 0 || this.#sent.has(value)) return;
    this.#sent.add(value);
    if (this.#sent.size > SENT_CREDENTIALS_KEPT) this.#sent.delete(this.#sent.values().next().value!);
  }

  /**
   * Remembers an Authorization header value, its credential after the scheme, and for Basic the decoded
   * `user:secret` and both halves, since base64 decodes straight to the secret (docs/architecture.md#redaction).
   */
  addAuthorization(headerValue: string): void {
    // Every call of a client sends the same header: its parts are worked out once, and added again each time
    // (one may have been dropped from the set since).
    if (this.#lastAuthorization?.header !== headerValue)
      this.#lastAuthorization = { header: headerValue, parts: authorizationParts(headerValue.trim()) };
    for (const part of this.#lastAuthorization.parts) this.add(part);
  }

  /** The configured secrets and the credentials sent so far. */
  values(): string[] {
    return [...this.#configured, ...this.#sent];
  }
}

/**
 * An Authorization header value, its credential after the scheme, and for Basic the decoded `user:secret` and both
 * halves, in the order {@link CredentialSet.addAuthorization} remembers them.
 */
function authorizationParts(value: string): string[] {
  const parts = [value];
  const credential = value.replace(/^[A-Za-z][\w.-]*\s+/, '');
  if (credential === value) return parts;
  parts.push(credential);
  if (!/^basic$/i.test(value.slice(0, value.length - credential.length).trim())) return parts;
  const decoded = fromBase64(credential);
  if (decoded === undefined) return parts;
  parts.push(decoded);
  const colon = decoded.indexOf(':');
  if (colon >= 0) parts.push(decoded.slice(0, colon), decoded.slice(colon + 1));
  return parts;
}

/** Every credential set still in use; a set that is garbage-collected drops out by itself. */
const LIVE_SETS = new Set<{ deref(): CredentialSet | undefined }>();

/** How many credential sets are held where the runtime has no `WeakRef` (see {@link referenceTo}). */
const SETS_HELD_WITHOUT_WEAKREF = 64;

/**
 * A weak reference to `set` where the runtime has `WeakRef`. Cloudflare Workers with a compatibility date before
 * 2025-05-05 have none (docs/architecture.md#redaction): there only the most recent sets are held, so an app that
 * builds an adapter per request does not grow without bound (an older client still redacts with its own set).
 */
function referenceTo(set: CredentialSet): { deref(): CredentialSet | undefined } {
  if (typeof WeakRef === 'function') return new WeakRef(set);
  if (LIVE_SETS.size >= SETS_HELD_WITHOUT_WEAKREF) LIVE_SETS.delete(LIVE_SETS.values().next().value!);
  return { deref: () => set };
}

/** The size at which building a set first drops the references of collected ones (see {@link sweepLiveSets}). */
let sweepAt = 256;

/**
 * Drops the references of sets already garbage-collected. Otherwise only a redaction does, and an app that builds
 * a client per request and never fails would hold one reference per request
 * (docs/architecture.md#what-a-cold-client-costs). The next sweep waits until the live sets have doubled, so
 * building a set stays constant time on average.
 */
function sweepLiveSets(): void {
  for (const ref of LIVE_SETS) if (!ref.deref()) LIVE_SETS.delete(ref);
  sweepAt = Math.max(256, LIVE_SETS.size * 2);
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
 * Removes `secrets` (default: every credential known to core) from everything an error carries, its `cause` chain
 * included. Errors are rewritten in place; plain objects and arrays inside them are replaced by redacted copies, so
 * a caller's own objects are never changed. Returns `error` (a thrown string redacted).
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
    // The stack repeats the message as it was when the error was made: it is rewritten on its own.
    for (const key of new Set([...Object.getOwnPropertyNames(value), 'message', 'stack', 'cause'])) {
      const descriptor = Object.getOwnPropertyDescriptor(value, key);
      const fields = value as Record<string, unknown>;
      if (descriptor?.get && descriptor.set) {
        // Runtimes that keep `stack` as an accessor: read it, and write the redacted text back.
        const text = fields[key];
        if (typeof text === 'string') fields[key] = redactSpellings(text, secrets);
        continue;
      }
      if (!descriptor || !('value' in descriptor)) continue;
      const redacted = redactValue(descriptor.value, secrets, seen, depth + 1);
      if (redacted !== descriptor.value && (descriptor.writable || descriptor.configurable))
        Object.defineProperty(value, key, { ...descriptor, value: redacted });
    }
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
