/**
 * Web Crypto helpers (docs/architecture.md#packages, docs/architecture.md#webhook-verification): no `node:` import,
 * no Buffer, so verification also runs on edge runtimes. Decoding is strict.
 */
import { builtinModule } from './diagnostics/channels.js';

const encoder = new TextEncoder();

/** UTF-8 bytes of a string; bytes pass through unchanged. */
export function utf8(data: string | Uint8Array): Uint8Array {
  return typeof data === 'string' ? encoder.encode(data) : data;
}

/** Lower-case hex of bytes. */
export function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

/** Bytes of a hex string; `undefined` when it is not an even-length hex string. */
export function fromHex(hex: string): Uint8Array | undefined {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) return undefined;
  const bytes = new Uint8Array(hex.length / 2);
  for (let index = 0; index < bytes.length; index++)
    bytes[index] = Number.parseInt(hex.slice(index * 2, index * 2 + 2), 16);
  return bytes;
}

/** Standard base64 of bytes. */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Bytes of a standard (padded) base64 string; `undefined` when it is malformed. */
export function fromBase64(text: string): Uint8Array | undefined {
  const compact = text.replace(/\s+/g, '');
  if (compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) return undefined;
  const binary = atob(compact);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

/** The value of an HTTP Basic `Authorization` header for `user:password` (UTF-8, then base64); see `ProviderAuth`. */
export function basicAuthorization(user: string, password: string): string {
  return `Basic ${toBase64(utf8(`${user}:${password}`))}`;
}

/**
 * Compares two secrets or signatures (strings as UTF-8 bytes) in time that does not depend on where they differ;
 * different lengths return false after the same work.
 */
export function timingSafeEqual(a: string | Uint8Array, b: string | Uint8Array): boolean {
  const left = utf8(a);
  const right = utf8(b);
  const length = Math.max(left.length, right.length);
  let difference = left.length ^ right.length;
  for (let index = 0; index < length; index++) difference |= (left[index] ?? 0) ^ (right[index] ?? 0);
  return difference === 0;
}

/**
 * The index of the first of `candidates` equal to `value`, or -1: which of several webhook secrets verified it.
 * Every candidate is compared, so the time taken does not depend on which one matched.
 */
export function timingSafeIndexOf(
  value: string | Uint8Array,
  candidates: readonly (string | Uint8Array)[],
): number {
  let found = -1;
  for (let index = 0; index < candidates.length; index++) {
    const equal = timingSafeEqual(candidates[index]!, value);
    if (equal && found < 0) found = index;
  }
  return found;
}

/**
 * The bytes as a view Web Crypto accepts on every runtime: a copy made in this realm unless they are already of
 * it (edge runtimes refuse an ArrayBuffer of another realm, such as a request body the host built).
 */
function bufferOf(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return bytes instanceof Uint8Array && bytes.buffer instanceof ArrayBuffer
    ? (bytes as Uint8Array<ArrayBuffer>)
    : new Uint8Array(bytes);
}

/** Lower-case hex SHA-256 of `data` (e.g. a stable id for a webhook payload that carries no reference). */
export async function sha256Hex(data: string | Uint8Array): Promise<string> {
  return toHex(new Uint8Array(await crypto.subtle.digest('SHA-256', bufferOf(utf8(data)))));
}

const hmacKeys = new Map<string, Promise<CryptoKey>>();

/** A key imported once: a handful per process at most, so hot-path verification never re-imports. */
function cachedKey(
  keys: Map<string, Promise<CryptoKey>>,
  name: string,
  importKey: () => Promise<CryptoKey>,
): Promise<CryptoKey> {
  let key = keys.get(name);
  if (!key) {
    key = importKey();
    if (keys.size > 16) keys.clear();
    keys.set(name, key);
  }
  return key;
}

/** `node:crypto`'s `createHmac`, as far as {@link hmacBytes} uses it. */
type CreateHmac = (
  algorithm: 'sha1' | 'sha256' | 'sha512',
  key: string,
) => { update(data: string | Uint8Array): { digest(): Uint8Array } };

/** Web Crypto's hash names as `node:crypto` spells them. */
const NODE_HASH = { 'SHA-1': 'sha1', 'SHA-256': 'sha256', 'SHA-512': 'sha512' } as const;

/**
 * The HMAC of `data` keyed with `secret` under `hash` (docs/architecture.md#webhook-signatures). Where the runtime
 * has `node:crypto` it is computed at once: Web Crypto signs on a worker thread, and the hop costs more than the
 * HMAC of a webhook body (tooling/bench `verify.providerN`). Elsewhere, and for an empty secret (which Web Crypto
 * refuses, and which must fail the same way on every runtime), Web Crypto computes it.
 */
export async function hmacBytes(
  hash: 'SHA-1' | 'SHA-256' | 'SHA-512',
  secret: string,
  data: string | Uint8Array,
): Promise<Uint8Array> {
  // Asked of the runtime, never imported: undefined on edge runtimes and browsers.
  const createHmac = secret === '' ? undefined : builtinModule('node:crypto')?.createHmac;
  if (typeof createHmac === 'function')
    return new Uint8Array((createHmac as CreateHmac)(NODE_HASH[hash], secret).update(data).digest());
  const key = cachedKey(hmacKeys, `${hash}:${secret}`, () =>
    crypto.subtle.importKey('raw', bufferOf(utf8(secret)), { name: 'HMAC', hash }, false, ['sign']),
  );
  return new Uint8Array(await crypto.subtle.sign('HMAC', await key, bufferOf(utf8(data))));
}

/** Lower-case hex HMAC-SHA512 of `data` keyed with `secret` (core's own test adapter signs with it). */
export async function hmacSha512Hex(secret: string, data: string | Uint8Array): Promise<string> {
  return toHex(await hmacBytes('SHA-512', secret, data));
}

const rsaKeys = new Map<string, Promise<CryptoKey>>();
const RSA_SHA256 = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };

/** DER bytes of an SPKI public key given as base64 DER or as PEM; `undefined` when malformed. */
export function spkiBytes(publicKey: string): Uint8Array | undefined {
  const body = publicKey.replace(/-----(BEGIN|END) PUBLIC KEY-----/g, '');
  return fromBase64(body);
}

/** `node:crypto`, as far as {@link verifyRsaSha256} uses it. */
interface NodeRsa {
  createPublicKey(key: { key: Uint8Array; format: 'der'; type: 'spki' }): { asymmetricKeyType?: string };
  verify(algorithm: 'sha256', data: Uint8Array, key: unknown, signature: Uint8Array): boolean;
}

/** Public keys as `node:crypto` key objects, imported once per key; `null` for one left to Web Crypto. */
const nodeRsaKeys = new Map<string, unknown>();

/**
 * The key as a `node:crypto` key object, parsed once: only an RSA key that parses, so every other key (malformed,
 * or not RSA) fails through Web Crypto exactly as it always did.
 */
function nodeRsaKey(node: NodeRsa, publicKey: string): unknown {
  if (nodeRsaKeys.has(publicKey)) return nodeRsaKeys.get(publicKey);
  let key: unknown = null;
  const der = spkiBytes(publicKey);
  try {
    const parsed = der && node.createPublicKey({ key: der, format: 'der', type: 'spki' });
    if (parsed && parsed.asymmetricKeyType === 'rsa') key = parsed;
  } catch {
    // Not a key node:crypto reads: Web Crypto refuses it below with its own error.
  }
  if (nodeRsaKeys.size > 16) nodeRsaKeys.clear();
  nodeRsaKeys.set(publicKey, key);
  return key;
}

/**
 * Verifies an RSASSA-PKCS1-v1_5 SHA-256 signature (Provider T) with an SPKI public key given as base64 DER or
 * PEM. Returns false for a bad signature; throws `TypeError` for a key that cannot be imported. Each key is imported
 * once per process. Where the runtime has `node:crypto` the signature is checked at once: Web Crypto verifies on a
 * worker thread, and the hop costs about as much as the check (tooling/bench `webhook.providerT`).
 */
export async function verifyRsaSha256(
  publicKey: string,
  data: string | Uint8Array,
  signature: Uint8Array,
): Promise<boolean> {
  // Asked of the runtime, never imported: undefined on edge runtimes and browsers.
  const node = builtinModule('node:crypto') as NodeRsa | undefined;
  const nodeKey = typeof node?.createPublicKey === 'function' ? nodeRsaKey(node, publicKey) : null;
  if (node && nodeKey) return node.verify('sha256', utf8(data), nodeKey, signature);
  const key = cachedKey(rsaKeys, publicKey, () => {
    const der = spkiBytes(publicKey);
    if (!der) throw new TypeError('The RSA public key is not base64 DER or PEM.');
    const imported = crypto.subtle.importKey('spki', bufferOf(der), RSA_SHA256, false, ['verify']);
    imported.catch(() => rsaKeys.delete(publicKey));
    return imported;
  });
  return crypto.subtle.verify('RSASSA-PKCS1-v1_5', await key, bufferOf(signature), bufferOf(utf8(data)));
}
