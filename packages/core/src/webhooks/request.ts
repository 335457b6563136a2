/**
 * What a bridge reads of a webhook request (docs/architecture.md#webhook-bridges): the full URL it was posted to,
 * rebuilt from a Node request when no `publicOrigin` is configured (the origin a valid Host header names, the path
 * and query of the target); and the raw body, up to `maxBodyBytes`, never buffering past it, a stream that fails
 * being `unreadable` rather than a rejection.
 */
import { utf8 } from '../crypto.js';
import type { NodeRequestLike } from './bridges.js';
import { concatBytes } from './signatures.js';

/**
 * A hostname (letters, digits, hyphens, dots), an IPv4 address or a bracketed IPv6 address, then an optional
 * port: what RFC 9110 §7.2 allows in Host. Anything else (spaces, `@`, a second colon) is refused.
 */
const HOST_HEADER = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)(?::(\d{1,5}))?$/;

/** The origin a request's Host header names, when it is a valid `host[:port]`; `undefined` otherwise. */
export function originFromHost(req: NodeRequestLike): string | undefined {
  const host = req.headers.host;
  if (typeof host !== 'string') return undefined;
  const match = HOST_HEADER.exec(host);
  if (match === null) return undefined;
  if (match[1] !== undefined && Number(match[1]) > 65535) return undefined;
  const encrypted = (req.socket as { encrypted?: boolean } | null | undefined)?.encrypted === true;
  return urlOf(`${encrypted ? 'https' : 'http'}://${host}`)?.origin;
}

/**
 * The path and query of a request target (RFC 9112 §3.2): origin-form as it is, absolute-form reduced to its path
 * and query (its scheme and authority are the client's word, never trusted, never parsed). Asterisk- and
 * authority-form, or anything else, is `undefined`.
 */
export function targetPathAndQuery(target: string | undefined): string | undefined {
  if (target === undefined || target === '') return '/';
  if (target.startsWith('/')) return target;
  const absolute = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/.exec(target);
  if (absolute === null) return undefined;
  const rest = target.slice(absolute[0].length);
  if (rest === '') return '/';
  return rest.startsWith('/') ? rest : rest.startsWith('?') ? `/${rest}` : undefined;
}

/**
 * `origin` followed by `pathAndQuery`, parsed as one absolute URL, never resolved relative to the origin (a
 * target `//other.example/x` stays a path on our origin instead of naming another host).
 */
export function joinUrl(origin: string, pathAndQuery: string): string | undefined {
  const url = urlOf(`${origin}${pathAndQuery}`);
  return url?.origin === origin ? url.toString() : undefined;
}

/** `text` parsed as an absolute URL; `undefined` when it is not one. */
export function urlOf(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** What reading a body came to. */
type BodyRead = Uint8Array | 'too_large' | 'unreadable';

/** Reads a Web body stream up to `maxBytes`; past it, cancels the stream instead of buffering the rest. */
export async function readWebBody(
  stream: ReadableStream<Uint8Array> | null,
  maxBytes: number,
): Promise<BodyRead> {
  if (stream === null) return new Uint8Array(0);
  const reader = stream.getReader();
  const body = await readChunks(() => () => reader.read(), maxBytes);
  if (body === 'too_large') await reader.cancel().catch(() => undefined);
  return body;
}

/**
 * Reads the body up to `maxBytes`. Past the limit it stops asking for chunks without destroying the stream (that
 * would close the socket before the 413 is written); the 413 carries `connection: close`, so Node closes the
 * socket once the reply is out and an endless body is cut off. A stream that fails (client abort) is
 * `unreadable`.
 */
export function readNodeBody(req: NodeRequestLike, maxBytes: number): Promise<BodyRead> {
  return readChunks(() => {
    const iterator = req[Symbol.asyncIterator]();
    return () => iterator.next();
  }, maxBytes);
}

/**
 * Opens the body, then asks it for chunks until it ends, is over `maxBytes` (no chunk asked for after it) or
 * fails (opening included).
 */
async function readChunks(
  open: () => () => Promise<IteratorResult<Uint8Array | string>>,
  maxBytes: number,
): Promise<BodyRead> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    const next = open();
    for (let read = await next(); !read.done; read = await next()) {
      const bytes = utf8(read.value);
      size += bytes.byteLength;
      if (size > maxBytes) return 'too_large';
      chunks.push(bytes);
    }
  } catch {
    return 'unreadable';
  }
  return concatBytes(chunks);
}
