/**
 * Provider references derived from a caller's idempotency key (docs/architecture.md#idempotency), for adapters
 * whose provider has no idempotency header but refuses (or lets the merchant find) a repeated merchant reference:
 * Provider N's `paymentReference` / `refundReference`, Provider R's `refId`. Web Crypto only (no `node:` import),
 * so it runs on every runtime core supports.
 */
import { sha256Hex } from './crypto.js';

/** Marks references derived from an idempotency key, so they are told apart from random ones at a glance. */
export const KEYED_REFERENCE_PREFIX = 'idem-';

/** Hex digits of the digest kept: with the 5-character prefix, 36 characters, the length of a UUID. */
const KEYED_REFERENCE_DIGITS = 31;

/**
 * The provider reference for `idempotencyKey`: `prefix` followed by the first 31 hex digits of SHA-256 of the
 * key's UTF-8 bytes. Deterministic, so every attempt and every process sends the same reference for one key, and
 * a merchant can compute it to search the provider's portal. A digest rather than the key itself: any key core
 * accepts (1–255 printable characters) fits the 36 characters `[0-9a-z-]` of a UUID-like reference; 124 bits
 * leave no practical room for collisions. References already sent to providers depend on this exact output:
 * never change the digest, the digit count or the default prefix.
 */
export async function keyedReference(
  idempotencyKey: string,
  prefix = KEYED_REFERENCE_PREFIX,
): Promise<string> {
  const hex = await sha256Hex(idempotencyKey);
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
