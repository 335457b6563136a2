/**
 * What a bridge reads of a webhook request (docs/architecture.md#webhook-bridges): the full URL it was posted to,
 * and the raw body, never buffered past `maxBodyBytes` (a stream that fails is `unreadable`, not a rejection).
 */
import { utf8 } from '../crypto.js';
import { concatBytes } from './signatures.js';

/** The parts of Node's `IncomingMessage` the listener reads. */
export interface NodeRequestLike extends AsyncIterable<Uint8Array | string> {
  url?: string | undefined;
  headers: Record<string, string | string[] | undefined>;
  /** A TLS socket has `encrypted: true`. */
  socket?: unknown;
  destroy?: () => unknown;
  /** True once the body stream has ended: a body parser may have read it already. */
  readableEnded?: boolean;
}

/** A hostname, an IPv4 or a bracketed IPv6 address, then an optional port: what RFC 9110 §7.2 allows in Host. */
const HOST_HEADER = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)(?::(\d{1,5}))?$/;

/** The origin a request's Host header names, when it is a valid `host[:port]`; `undefined` otherwise. */
export function originFromHost(req: NodeRequestLike): string | undefined {
  const host = req.headers.host;
  if (typeof host !== 'string') return undefined;
  const match = HOST_HEADER.exec(host);
  if (match === null || Number(match[1] ?? 0) > 65535) return undefined;
  const encrypted = (req.socket as { encrypted?: boolean } | null | undefined)?.encrypted === true;
  return urlOf(`${encrypted ? 'https' : 'http'}://${host}`)?.origin;
}

/**
 * The path and query of a request target (RFC 9112 §3.2): origin-form as it is, absolute-form reduced to its path
 * and query (its scheme and authority are the client's word, never trusted); anything else is `undefined`.
 */
export function targetPathAndQuery(target: string | undefined): string | undefined {
  if (target === undefined || target === '') return '/';
  if (target.startsWith('/')) return target;
  const absolute = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/.exec(target);
  if (absolute === null) return undefined;
  const rest = target.slice(absolute[0].length);
  return rest === '' || rest.startsWith('?') ? `/${rest}` : rest.startsWith('/') ? rest : undefined;
}

/** `origin` then `pathAndQuery` as one URL, never resolved relatively (`//other.example/x` stays ours). */
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

/** Reads a Web body stream up to `maxBytes`; past it, cancels the stream instead of buffering the rest. */
export async function readWebBody(stream: ReadableStream<Uint8Array> | null, maxBytes: number) {
  if (stream === null) return new Uint8Array(0);
  const reader = stream.getReader();
  const body = await readChunks(() => () => reader.read(), maxBytes);
  if (body === 'too_large') await reader.cancel().catch(() => undefined);
  return body;
}

/**
 * Reads the body up to `maxBytes`, then stops without destroying the stream (that would close the socket before
 * the 413 is written); the 413's `connection: close` cuts an endless body off.
 */
export function readNodeBody(req: NodeRequestLike, maxBytes: number) {
  return readChunks(() => {
    const iterator = req[Symbol.asyncIterator]();
    return () => iterator.next();
  }, maxBytes);
}

/** Opens the body, then asks it for chunks until it ends, is over `maxBytes` or fails (opening included). */
async function readChunks(open: () => () => Promise<IteratorResult<Uint8Array | string>>, maxBytes: number) {
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
