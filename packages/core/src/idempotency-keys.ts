/**
 * Provider references derived from a caller's idempotency key, for providers without an idempotency header
 * (docs/architecture.md#idempotency), and the check of the key itself.
 */
import { sha256Hex } from './crypto.js';

/** Marks references derived from an idempotency key, so they are told apart from random ones at a glance. */
export const KEYED_REFERENCE_PREFIX = 'idem-';

/** Hex digits of the digest kept: with the 5-character prefix, 36 characters, the length of a UUID. */
const KEYED_REFERENCE_DIGITS = 31;

/**
 * The provider reference of a call's idempotency key (or of the operation context, options or `resolve` lookup it
 * comes in; `undefined` when none): `prefix` and the first 31 hex digits of SHA-256 of the key, the same for every
 * attempt and process, and UUID-sized whatever the key. References already sent to providers depend on this exact
 * output: never change the digest, the digit count or the default prefix.
 */
export async function keyedReference(idempotencyKey: string, prefix?: string): Promise<string>;
export async function keyedReference(
  given: Parameters<typeof idempotencyKeyOf>[0],
  prefix?: string,
): Promise<string | undefined>;
export async function keyedReference(
  given: string | Parameters<typeof idempotencyKeyOf>[0],
  prefix = KEYED_REFERENCE_PREFIX,
): Promise<string | undefined> {
  const key = typeof given === 'string' ? given : idempotencyKeyOf(given);
  if (key === undefined) return undefined;
  const hex = await sha256Hex(key);
  return `${prefix}${hex.slice(0, KEYED_REFERENCE_DIGITS)}`;
}

/** The caller's key of a call, from its operation context, options or `resolve` lookup; else `undefined`. */
export function idempotencyKeyOf(
  given: { idempotency?: { key: string } | undefined; idempotencyKey?: unknown } | null | undefined,
): string | undefined {
  const key = given?.idempotency?.key ?? given?.idempotencyKey;
  return typeof key === 'string' ? key : undefined;
}

/** The longest idempotency key accepted. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/**
 * Checks a caller's idempotency key: 1–255 characters of well-formed text, no control characters. A lone surrogate
 * has no UTF-8 form (hashed, it becomes U+FFFD), so two different keys would derive the same provider reference.
 */
export function idempotencyKeyIssue(key: unknown): string | undefined {
  if (key === undefined) return undefined;
  if (typeof key !== 'string') return 'must be a string';
  if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH)
    return `must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters long`;
  if (/\p{Surrogate}/u.test(key))
    return 'must be well-formed text (it holds a lone UTF-16 surrogate, which has no UTF-8 form)';
  if (/\p{Cc}/u.test(key)) return 'must not contain control characters';
  return undefined;
}
