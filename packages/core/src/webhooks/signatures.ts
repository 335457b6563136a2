/**
 * Webhook signature headers (docs/architecture.md#webhook-signatures), HMAC or RSA SHA-256, configured by
 * adapters. Every key and every signature given is compared (constant-time for HMAC), so the time taken does not
 * tell which key matched. Web Crypto only, so it runs on every runtime core supports.
 */
import {
  fromBase64,
  fromHex,
  hmacBytes,
  timingSafeIndexOf,
  toBase64,
  toHex,
  utf8,
  verifyRsaSha256,
} from '../crypto.js';
import { type WebhookFailureReason, WebhookVerificationError } from './errors.js';
import type { WebhookDelivery } from './types.js';

/** The hash of an HMAC scheme, as Web Crypto names it. */
export type HmacAlgorithm = 'SHA-1' | 'SHA-256' | 'SHA-512';

/**
 * How a provider signs its webhooks in one header (docs/architecture.md#webhook-signatures): simplest,
 * `{ header: 'x-signature', encoding: 'hex' }`; a timestamped one adds `parts`, `tolerance` and `signedContent`.
 */
export interface SignatureScheme {
  /** HMAC only: the hash (default `'SHA-256'`). RSA schemes are RSASSA-PKCS1-v1_5 with SHA-256. */
  algorithm?: HmacAlgorithm;
  /** The header carrying the signature, in any case (core hands headers over lower-cased). */
  header: string;
  /** How each signature is written: `hex` (either case) or standard padded `base64`. Anything else is refused. */
  encoding: 'hex' | 'base64';
  /**
   * The header as named parts (`t=1700000000, v1=ab…, v1=cd…`): the timestamp part (unix seconds), the signature
   * part (any one that verifies is enough) and the separator (default `,`); without it, the header is one
   * signature.
   */
  parts?: { timestamp?: string; signature: string; separator?: string };
  /**
   * Refuses a timestamp (`parts.timestamp`, then required) older than `maxAgeSeconds` or further ahead than
   * `maxFutureSeconds` (default 0) as a possible replay (`stale_timestamp`). `now` in milliseconds, for tests.
   */
  tolerance?: { maxAgeSeconds: number; maxFutureSeconds?: number; now?: () => number };
  /**
   * The signed content, as pieces joined byte for byte (default the raw body alone; e.g. `` [`${timestamp}.`,
   * rawBody] ``). Called after the header and timestamp passed; what it throws is thrown as it is.
   */
  signedContent?: (rawBody: Uint8Array, timestamp: number | undefined) => readonly (string | Uint8Array)[];
  /** The error messages, in the provider's words (which secret to pass): one per failure, each with a default. */
  messages?: Partial<Record<SignatureFailure, string>>;
}

/** What can fail in a signature header, each with its own message in {@link SignatureScheme.messages}. */
type SignatureFailure = keyof typeof DEFAULT_MESSAGES;

/** Which of the keys given verified the header (reported as `secretIndex`), and its timestamp (unix seconds). */
interface VerifiedSignature {
  secretIndex: number;
  timestamp: number | undefined;
}

/**
 * Verifies an HMAC signature header over the raw body with every one of `secrets` (several while one is rotated),
 * in constant time; resolves to the index of the secret that matched. Throws `WebhookVerificationError`:
 * `missing_secret`, `missing_signature`, `invalid_signature` or `stale_timestamp`.
 */
export async function verifyHmacHeader(
  delivery: WebhookDelivery,
  secrets: readonly string[],
  scheme: SignatureScheme,
): Promise<VerifiedSignature> {
  const { signatures, timestamp, content } = readSignatureHeader(delivery, secrets, scheme);
  const algorithm = scheme.algorithm ?? 'SHA-256';
  const expected = await Promise.all(secrets.map((secret) => hmacBytes(algorithm, secret, content())));
  // Every signature against every secret, whether or not one matched already.
  const matches = signatures.map((signature) => timingSafeIndexOf(signature, expected));
  const secretIndex = matches.find((index) => index >= 0) ?? -1;
  if (secretIndex < 0) refuse(scheme, 'mismatch', 'invalid_signature');
  return { secretIndex, timestamp };
}

/**
 * Verifies an RSASSA-PKCS1-v1_5 SHA-256 signature header with every one of `publicKeys` (SPKI, base64 DER or PEM);
 * resolves to the index of the first that verified. Throws as {@link verifyHmacHeader} does, and `TypeError` for a
 * key it cannot import.
 */
export async function verifyRsaHeader(
  delivery: WebhookDelivery,
  publicKeys: readonly string[],
  scheme: Omit<SignatureScheme, 'algorithm'>,
): Promise<VerifiedSignature> {
  const { signatures, timestamp, content } = readSignatureHeader(delivery, publicKeys, scheme);
  const signed = content();
  // Key by key, every signature: the first key with one that verifies.
  const verified = await Promise.all(
    publicKeys.flatMap((key) => signatures.map((signature) => verifyRsaSha256(key, signed, signature))),
  );
  const secretIndex = Math.floor(verified.indexOf(true) / signatures.length);
  if (secretIndex < 0) refuse(scheme, 'mismatch', 'invalid_signature');
  return { secretIndex, timestamp };
}

/** Signs `content` as an HMAC scheme's provider does: for simulators and tests that send signed webhooks. */
export async function hmacSignature(
  secret: string,
  content: string | Uint8Array,
  scheme: { algorithm?: HmacAlgorithm; encoding: 'hex' | 'base64' },
): Promise<string> {
  const signature = await hmacBytes(scheme.algorithm ?? 'SHA-256', secret, utf8(content));
  return scheme.encoding === 'hex' ? toHex(signature) : toBase64(signature);
}

/** The checks before any cryptography; the signed content is built only once they passed. */
function readSignatureHeader(delivery: WebhookDelivery, keys: readonly string[], scheme: SignatureScheme) {
  if (keys.length === 0) refuse(scheme, 'missingSecret', 'missing_secret');
  const value = delivery.headers[scheme.header.toLowerCase()];
  if (!value) refuse(scheme, 'missingSignature', 'missing_signature');
  const parsed = parseHeader(value, scheme);
  if (!parsed) refuse(scheme, 'malformedSignature', 'invalid_signature');
  const { timestamp } = parsed;
  if (scheme.tolerance) {
    const nowSeconds = Math.floor((scheme.tolerance.now ?? Date.now)() / 1000);
    const age = timestamp === undefined ? Number.NaN : nowSeconds - timestamp;
    // NaN (no timestamp) fails both comparisons: refused.
    if (!(age <= scheme.tolerance.maxAgeSeconds && -age <= (scheme.tolerance.maxFutureSeconds ?? 0)))
      refuse(scheme, 'staleTimestamp', 'stale_timestamp');
  }
  const content = () =>
    concatBytes(scheme.signedContent?.(delivery.rawBody, timestamp) ?? [delivery.rawBody]);
  return { signatures: parsed.signatures, timestamp, content };
}

/** The signatures (decoded) and timestamp of a header; `undefined` when it is not what the scheme describes. */
function parseHeader(value: string, scheme: SignatureScheme) {
  const decode = (text: string) => {
    const bytes = scheme.encoding === 'hex' ? fromHex(text) : fromBase64(text);
    return bytes && bytes.length > 0 ? bytes : undefined;
  };
  if (!scheme.parts) {
    const signature = decode(value.trim());
    return signature && { signatures: [signature], timestamp: undefined };
  }
  const { parts } = scheme;
  const signatures: Uint8Array[] = [];
  let timestampText: string | undefined;
  for (const part of value.split(parts.separator ?? ',')) {
    const separator = part.indexOf('=');
    if (separator < 0) return undefined;
    const name = part.slice(0, separator).trim();
    const text = part.slice(separator + 1).trim();
    if (name === parts.timestamp) timestampText = text;
    else if (name === parts.signature) {
      const signature = decode(text);
      if (!signature) return undefined;
      signatures.push(signature);
    }
  }
  if (signatures.length === 0) return undefined;
  if (parts.timestamp === undefined) return { signatures, timestamp: undefined };
  if (timestampText === undefined || !/^\d{1,12}$/.test(timestampText)) return undefined;
  return { signatures, timestamp: Number(timestampText) };
}

/** The pieces (of signed content, of a streamed body) as one new byte array. */
export function concatBytes(pieces: readonly (string | Uint8Array)[]): Uint8Array {
  const bytes = pieces.map(utf8);
  const joined = new Uint8Array(bytes.reduce((length, piece) => length + piece.length, 0));
  let offset = 0;
  for (const piece of bytes) {
    joined.set(piece, offset);
    offset += piece.length;
  }
  return joined;
}

const DEFAULT_MESSAGES = {
  missingSecret: () =>
    'No webhook secret or key is configured, so no delivery can be verified: pass webhookSecret.',
  missingSignature: (header: string) =>
    `The ${header} header is missing: this request was not sent by the provider.`,
  malformedSignature: (header: string) => `The ${header} header is not a signature in the provider's format.`,
  staleTimestamp: (header: string) =>
    `The ${header} timestamp is outside the accepted window; refused as a possible replay. Check the server clock.`,
  mismatch: (header: string) =>
    `The ${header} signature does not match the body: check the webhook secret and that the raw body is passed unchanged.`,
};

/** Throws the failure's `WebhookVerificationError` with the scheme's message for it. */
function refuse(scheme: SignatureScheme, failure: SignatureFailure, reason: WebhookFailureReason): never {
  const given = scheme.messages ?? {};
  // A malformed signature matches nothing: without a message of its own it reads as a mismatch.
  const message =
    given[failure] ??
    (failure === 'malformedSignature' ? given.mismatch : undefined) ??
    DEFAULT_MESSAGES[failure](scheme.header);
  throw new WebhookVerificationError(message, { reason });
}
