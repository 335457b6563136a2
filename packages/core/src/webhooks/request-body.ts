/**
 * Reading a webhook request's raw body in a bridge (docs/architecture.md#webhook-bridges): up to `maxBodyBytes`,
 * never buffering past it, and a stream that fails is `unreadable` rather than a rejection.
 */
import { utf8 } from '../crypto.js';
import type { NodeRequestLike } from './bridges.js';
import { concatBytes } from './signatures.js';

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
