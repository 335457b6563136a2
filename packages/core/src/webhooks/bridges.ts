/**
 * Bridges from HTTP servers to a {@link WebhookHandler} (design §5). They read the raw body themselves and
 * map outcomes to the statuses providers act on: 200 processed or nothing to do, 400 verification failure,
 * 503 retryable verification failure (deliver again), 500 callback failure (deliver again).
 * Neither imports a Node built-in: the Node listener works on the request's async iterator.
 */
import type { AdapterTypes } from '../adapter.js';
import { WebhookHandlerError, WebhookVerificationError } from '../errors.js';
import type { WebhookHandler, WebhookResult } from './handler.js';

/** The reply a bridge sends: status and a small JSON body with no secret in it. */
export interface WebhookReply {
  status: 200 | 400 | 500 | 503;
  body: { received: true; events: number; duplicates: number } | { error: string; message: string };
}

/** Maps the outcome of `handle()` to the reply a provider expects. Rethrows anything that is not a webhook outcome. */
export async function replyFor(outcome: Promise<WebhookResult>): Promise<WebhookReply> {
  try {
    const result = await outcome;
    return {
      status: 200,
      body: { received: true, events: result.events.length, duplicates: result.duplicates.length },
    };
  } catch (error) {
    if (WebhookVerificationError.isInstance(error) || WebhookHandlerError.isInstance(error)) {
      return { status: error.status, body: { error: error.code, message: error.message } };
    }
    return { status: 500, body: { error: 'internal_error', message: 'The webhook could not be processed.' } };
  }
}

/** A Web `Request → Response` handler (Next.js route handlers, Hono, Bun, Deno, edge runtimes). */
export function toFetchHandler<T extends AdapterTypes>(
  handler: WebhookHandler<T>,
): (request: Request) => Promise<Response> {
  return async (request) => {
    const body = new Uint8Array(await request.arrayBuffer());
    const reply = await replyFor(
      handler.handle({ body, headersAsObject: request.headers, fullUrl: request.url }),
    );
    return new Response(JSON.stringify(reply.body), {
      status: reply.status,
      headers: { 'content-type': 'application/json' },
    });
  };
}

/** The parts of Node's `IncomingMessage` the listener reads. */
export interface NodeRequestLike extends AsyncIterable<Uint8Array | string> {
  url?: string | undefined;
  headers: Record<string, string | string[] | undefined>;
  /** The socket; a TLS socket has `encrypted: true`. */
  socket?: unknown;
}

/** The parts of Node's `ServerResponse` the listener writes. */
export interface NodeResponseLike {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(body?: string): unknown;
}

/** Options of {@link toNodeListener}. */
export interface NodeListenerOptions {
  /**
   * The public origin the provider posts to (`https://shop.example`), when a proxy sits in front: Provider T
   * signs the host it addressed. Default: taken from the request's Host header.
   */
  publicOrigin?: string;
  /** Largest body accepted, in bytes (default 1 MiB); a larger one is refused with 400 without being read whole. */
  maxBodyBytes?: number;
}

/** A Node `(req, res)` listener for `http.createServer`, Express (mount without a body parser) or Fastify's raw mode. */
export function toNodeListener<T extends AdapterTypes>(
  handler: WebhookHandler<T>,
  options: NodeListenerOptions = {},
): (req: NodeRequestLike, res: NodeResponseLike) => Promise<void> {
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  return async (req, res) => {
    const encrypted = (req.socket as { encrypted?: boolean } | null | undefined)?.encrypted === true;
    const origin =
      options.publicOrigin ?? `${encrypted ? 'https' : 'http'}://${String(req.headers.host ?? 'localhost')}`;
    const body = await readBody(req, maxBodyBytes);
    const outcome =
      body === undefined
        ? Promise.reject(
            new WebhookVerificationError(`The webhook body is larger than ${maxBodyBytes} bytes.`, {
              reason: 'malformed_payload',
            }),
          )
        : handler.handle({
            body,
            headersAsObject: req.headers,
            fullUrl: new URL(req.url ?? '/', origin).toString(),
          });
    const reply = await replyFor(outcome);
    res.statusCode = reply.status;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(reply.body));
  };
}

async function readBody(req: NodeRequestLike, maxBytes: number): Promise<Uint8Array | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let tooLarge = false;
  for await (const chunk of req) {
    const bytes = typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk;
    size += bytes.byteLength;
    if (size > maxBytes) tooLarge = true;
    else chunks.push(bytes);
  }
  if (tooLarge) return undefined;
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}
