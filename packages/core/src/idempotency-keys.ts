/**
 * Provider references derived from a caller's idempotency key (docs/architecture.md#idempotency), for adapters
 * whose provider has no idempotency header but refuses (or lets the merchant find) a repeated merchant reference:
 * Provider N's `paymentReference` / `refundReference`, Provider R's `refId`. Web Crypto only (no `node:` import),
 * so it runs on every runtime core supports. Also the check of the caller's key itself.
 */
import { sha256Hex } from './crypto.js';

/** Marks references derived from an idempotency key, so they are told apart from random ones at a glance. */
export const KEYED_REFERENCE_PREFIX = 'idem-';

/** Hex digits of the digest kept: with the 5-character prefix, 36 characters, the length of a UUID. */
const KEYED_REFERENCE_DIGITS = 31;

/**
 * The provider reference of a call's idempotency key (docs/architecture.md#idempotency), the one step from key to
 * reference every adapter takes: given the key itself, or the operation context, options or `resolve` lookup it
 * comes in (`undefined` when they carry none), `prefix` followed by the first 31 hex digits of SHA-256 of the
 * key's UTF-8 bytes. Deterministic, so every attempt and every process sends the same reference for one key, and
 * a merchant can compute it to search the provider's portal. A digest rather than the key itself: any key core
 * accepts (1–255 printable characters) fits the 36 characters `[0-9a-z-]` of a UUID-like reference; 124 bits
 * leave no practical room for collisions. References already sent to providers depend on this exact output:
 * never change the digest, the digit count or the default prefix.
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

/**
 * The caller's key of a call, from its operation context, options or `resolve` lookup: the ledger's when called
 * through `createPay`, else the option itself; `undefined` when none is given (or what is given is no string).
 */
export function idempotencyKeyOf(
  given: { idempotency?: { key: string } | undefined; idempotencyKey?: unknown } | null | undefined,
): string | undefined {
  const key = given?.idempotency?.key ?? given?.idempotencyKey;
  return typeof key === 'string' ? key : undefined;
}

/** The longest idempotency key accepted. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/**
 * Checks a caller's idempotency key: 1–255 characters of well-formed text, no control characters. A lone
 * surrogate (`'a\uD800'`) has no UTF-8 form: hashed, it becomes U+FFFD, so two different keys would derive the
 * same provider reference (`keyedReference`); control characters are C0, DEL and C1 (`\p{Cc}`).
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
