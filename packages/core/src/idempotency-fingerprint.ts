import { sha256Hex } from './crypto.js';
import { ValidationError } from './errors.js';
import { isOperation, type Operation } from './operations.js';
import { unserialisableIssues } from './validation.js';

/**
 * The fingerprint of a money-moving request (docs/architecture.md#idempotency): `v1:<operation>:<SHA-256 hex of the
 * canonical JSON of the operation and its validated input>`, the operation spelled out for `pay.resolve(key)`.
 */
export async function fingerprintOf(operation: Operation, input: readonly unknown[]): Promise<string> {
  return `v1:${operation}:${await sha256Hex(canonicalJson([operation, input]))}`;
}

/**
 * {@link fingerprintOf} for the ledger: a request JSON cannot hold (a `BigInt` in `provider_metadata`, a cycle)
 * is the `ValidationError` it is without a key, never the `TypeError` of the canonical JSON.
 */
export async function requestFingerprint(operation: Operation, input: readonly unknown[]): Promise<string> {
  try {
    return await fingerprintOf(operation, input);
  } catch (error) {
    // The last argument is the parameters object; an id before it is a validated string.
    const issues = unserialisableIssues(input[input.length - 1]);
    throw new ValidationError(
      issues.length > 0
        ? issues
        : [
            {
              path: '',
              message: `cannot be read as JSON (${error instanceof Error ? error.message : String(error)})`,
            },
          ],
      { operation },
    );
  }
}

/** The operation a fingerprint made by {@link fingerprintOf} names, if it names one. */
export function operationOfFingerprint(fingerprint: string): Operation | undefined {
  const operation = /^v1:([a-z]+\.[a-z]+):[0-9a-f]{64}$/.exec(fingerprint)?.[1];
  return isOperation(operation) ? operation : undefined;
}

/** JSON with object keys sorted at every level and `undefined` members left out. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return item;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(item).sort()) sorted[key] = (item as Record<string, unknown>)[key];
    return sorted;
  });
}
