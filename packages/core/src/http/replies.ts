/** Reading provider replies: JSON, form-encoded text, and validation against the adapter's wire schema. */
import * as v from 'valibot';
import { type ErrorContext, InvalidResponseError } from '../errors.js';
import type { ProviderName } from '../records.js';
import { mismatchedFields } from '../validation.js';

/** Parses JSON text; `undefined` when it is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Parses `application/x-www-form-urlencoded` text into an object of strings. */
export function parseForm(text: string): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(text));
}

/** Validates an upstream reply: a mismatch is an `InvalidResponseError` naming the fields, never their values. */
export function parseReply<S extends v.GenericSchema>(
  schema: S,
  value: unknown,
  where: { provider: ProviderName; call: string; context?: ErrorContext },
): v.InferOutput<S> {
  const result = v.safeParse(schema, value, { abortEarly: false });
  if (result.success) return result.output;
  const fields = mismatchedFields(result.issues);
  throw new InvalidResponseError(
    `${where.provider} answered ${where.call} with a reply we cannot read (fields ${fields} do not match the wire contract). If this persists, the provider's API changed; report it.`,
    { context: where.context },
  );
}
