/**
 * Reading a webhook request's raw body in a bridge (docs/architecture.md#webhook-bridges): up to `maxBodyBytes`,
 * never buffering past it, and a stream that fails is `unreadable` rather than a rejection.
 */
import type { NodeRequestLike } from './bridges.js';

/** Reads a Web body stream up to `maxBytes`; past it, cancels the stream instead of buffering the rest. */
export async function readWebBody(
  stream: ReadableStream<Uint8Array> | null,
  maxBytes: number,
): Promise<Uint8Array | 'too_large' | 'unreadable'> {
  if (stream === null) return new Uint8Array(0);
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        return 'too_large';
      }
      chunks.push(value);
    }
  } catch {
    return 'unreadable';
  }
  return concat(chunks, size);
}

/**
 * Reads the body up to `maxBytes`. Past the limit it stops asking for chunks without destroying the stream (that
 * would close the socket before the 413 is written); the 413 carries `connection: close`, so Node closes the
 * socket once the reply is out and an endless body is cut off. A stream that fails (client abort) is
 * `unreadable`.
 */
export async function readNodeBody(
  req: NodeRequestLike,
  maxBytes: number,
): Promise<Uint8Array | 'too_large' | 'unreadable'> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    const iterator = req[Symbol.asyncIterator]();
    for (;;) {
      const { done, value } = await iterator.next();
      if (done) break;
      const bytes = typeof value === 'string' ? new TextEncoder().encode(value) : value;
      size += bytes.byteLength;
      if (size > maxBytes) return 'too_large';
      chunks.push(bytes);
    }
  } catch {
    return 'unreadable';
  }
  return concat(chunks, size);
}

/** The chunks of a body as one array of `size` bytes. */
function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}
