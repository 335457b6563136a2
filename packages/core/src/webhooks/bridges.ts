/**
 * Bridges from HTTP servers to a {@link WebhookHandler} (docs/architecture.md#webhook-bridges): they read the raw
 * body themselves and answer 200, 400 (refused or malformed), 413 (over `maxBodyBytes`), 503 (retryable) or 500 (a
 * callback failed). The URL faces the internet unauthenticated: no request rejects the listener's promise (an
 * unhandled rejection ends a Node process). No Node built-in is imported.
 */

import { ConfigurationError } from '../errors.js';
import type { AdapterTypes } from '../operations.js';
import { bodyAlreadyParsedError } from './delivery.js';
import type { WebhookHandler, WebhookRequest, WebhookResult } from './handler.js';
import { failureReply, internalError, type WebhookReply } from './report.js';
import { joinUrl, originFromHost, readNodeBody, readWebBody, targetPathAndQuery, urlOf } from './request.js';

export type { WebhookReply } from './report.js';

/** Options of {@link toNodeListener} and {@link toFetchHandler}. */
export interface WebhookBridgeOptions {
  /**
   * The public origin the provider posts to (`https://shop.example`; a path here is ignored). Provider T signs the
   * host it addressed, so set this in production: the verified URL is then this origin plus the request target's
   * path and query, whatever the Host header or target says. Default: Node listener, a valid `Host` header
   * (`https` on a TLS socket; a missing or invalid one is answered 400); Web handler, the origin of `request.url`.
   */
  publicOrigin?: string;
  /** Largest body accepted, in bytes (default 1 MiB), enforced while streaming (past it: 413). */
  maxBodyBytes?: number;
}

/** Default `maxBodyBytes`: provider webhooks are a few KiB; 1 MiB leaves room without inviting memory abuse. */
const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/**
 * Maps the outcome of `handle()` to the reply a provider expects. Never rejects. A failure gets the answer the
 * handler decided before its `.onError` callbacks ran.
 */
export async function replyFor(outcome: Promise<WebhookResult>): Promise<WebhookReply> {
  try {
    const result = await outcome;
    return {
      status: 200,
      body: { received: true, events: result.events.length, duplicates: result.duplicates.length },
    };
  } catch (error) {
    return failureReply(error);
  }
}

/**
 * A Web `Request → Response` handler (Next.js route handlers, Hono, Bun, Deno, edge runtimes); never rejects.
 * `handler` is the handler, or a function that builds it on the first request, so a route module that `next build`
 * loads without the provider's variables loads fine; a request while one is missing is answered a JSON 500 naming
 * it (see {@link toNodeListener}).
 */
export function toFetchHandler<T extends AdapterTypes>(
  handler: WebhookHandler<T> | (() => WebhookHandler<T>),
  options: WebhookBridgeOptions = {},
): (request: Request) => Promise<Response> {
  const settings = bridgeSettings(options);
  const handlerOf = builtOnce(handler);
  const fetchReply = async (request: Request): Promise<WebhookReply> => {
    const target = urlOf(request.url);
    const fullUrl =
      target && joinUrl(settings.publicOrigin ?? target.origin, `${target.pathname}${target.search}`);
    if (fullUrl === undefined) return badRequest('The request URL cannot be parsed.');
    // A middleware or framework that read the body first (`await request.json()`) leaves a used stream: the raw
    // bytes are gone, which is a configuration error, not a forgery (answered 503 with the fix).
    if (request.bodyUsed) return failureReply(bodyAlreadyParsedError('fetch'));
    const declared = declaredLength(request.headers.get('content-length'));
    if (declared !== undefined && declared > settings.maxBodyBytes) {
      await request.body?.cancel().catch(() => undefined);
      return tooLarge(settings.maxBodyBytes);
    }
    const body = await readWebBody(request.body, settings.maxBodyBytes);
    if (body === 'too_large') return tooLarge(settings.maxBodyBytes);
    if (body === 'unreadable') return badRequest('The request body could not be read to its end.');
    return deliver(handlerOf, { body, headersAsObject: request.headers, fullUrl });
  };
  return async (request) => {
    const reply = await fetchReply(request).catch(internalError);
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
  /** A TLS socket has `encrypted: true`. */
  socket?: unknown;
  destroy?: () => unknown;
  /** True once the body stream has ended: a body parser may have read it already. */
  readableEnded?: boolean;
}

/** The parts of Node's `ServerResponse` the listener writes. */
export interface NodeResponseLike {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(body?: string): unknown;
  headersSent?: boolean;
}

/**
 * A Node `(req, res)` listener for `http.createServer`, Express (mount without a body parser) or Fastify's raw
 * mode. The returned promise never rejects: a request that cannot be answered (the client went away mid-body) has
 * its connection closed. Throws `ConfigurationError` at once for an invalid `publicOrigin` or `maxBodyBytes`.
 * `handler` is the handler, or a function that builds it on the first request (again on the next one while it
 * throws): a request it cannot be built for is answered 500 `configuration_error`, whose message names what is
 * missing (a `ConfigurationError` names variables and members, never a value); any other failure is the bare 500
 * `internal_error` (docs/architecture.md#webhook-bridges).
 */
export function toNodeListener<T extends AdapterTypes>(
  handler: WebhookHandler<T> | (() => WebhookHandler<T>),
  options: WebhookBridgeOptions = {},
): (req: NodeRequestLike, res: NodeResponseLike) => Promise<void> {
  const settings = bridgeSettings(options);
  const handlerOf = builtOnce(handler);
  const nodeReply = async (req: NodeRequestLike): Promise<WebhookReply | 'unanswerable'> => {
    const origin = settings.publicOrigin ?? originFromHost(req);
    if (origin === undefined) {
      return badRequest('The Host header is missing or not a valid host; set publicOrigin on the bridge.');
    }
    const pathAndQuery = targetPathAndQuery(req.url);
    const fullUrl = pathAndQuery === undefined ? undefined : joinUrl(origin, pathAndQuery);
    if (fullUrl === undefined) return badRequest('The request target is not a valid path.');
    const declared = declaredLength(req.headers['content-length']);
    if (declared !== undefined && declared > settings.maxBodyBytes) return tooLarge(settings.maxBodyBytes);
    const endedBeforeReading = req.readableEnded === true;
    const body = await readNodeBody(req, settings.maxBodyBytes);
    if (body === 'unreadable') return 'unanswerable';
    if (body === 'too_large') return tooLarge(settings.maxBodyBytes);
    // A body announced (a Content-Length above 0, or a chunked stream that had ended before the bridge read it) yet
    // none read: a body parser (a global express.json(), Fastify's) consumed it. Answered 503 with the fix for the
    // framework at hand, since the delivery may well be genuine (docs/architecture.md#webhook-handler).
    const announced =
      declared === undefined
        ? endedBeforeReading && req.headers['transfer-encoding'] !== undefined
        : declared > 0;
    if (body.byteLength === 0 && announced) {
      // Express (4 and 5) gives every request its application as `req.app`.
      const express = typeof (req as { app?: unknown }).app === 'function';
      return failureReply(bodyAlreadyParsedError(express ? 'express' : 'node'));
    }
    return deliver(handlerOf, { body, headersAsObject: req.headers, fullUrl });
  };
  return async (req, res) => {
    try {
      const reply = await nodeReply(req);
      if (reply === 'unanswerable') closeConnection(req);
      else writeReply(res, reply);
    } catch {
      try {
        writeReply(res, internalError());
      } catch {
        closeConnection(req);
      }
    }
  };
}

/** The handler a bridge serves: `handler` itself, or the one its builder made on first use (again after a throw). */
function builtOnce<T extends AdapterTypes>(
  handler: WebhookHandler<T> | (() => WebhookHandler<T>),
): () => WebhookHandler<T> {
  if (typeof handler !== 'function') return () => handler;
  let built: WebhookHandler<T> | undefined;
  return () => {
    built ??= handler();
    return built;
  };
}

/**
 * Hands the request to the handler and maps the outcome to a reply. A handler that cannot be built is the
 * deployment's configuration, not the delivery's fault: 500, so the provider delivers again once it is fixed, with
 * a `ConfigurationError`'s message (the variables to set, never a value) instead of an empty body.
 */
function deliver<T extends AdapterTypes>(
  handlerOf: () => WebhookHandler<T>,
  request: WebhookRequest,
): Promise<WebhookReply> {
  let handler: WebhookHandler<T>;
  try {
    handler = handlerOf();
  } catch (error) {
    if (!ConfigurationError.isInstance(error)) return Promise.resolve(internalError());
    const message = `The webhook handler could not be built: ${error.message}`;
    return Promise.resolve({ status: 500, body: { error: error.code, message } });
  }
  return replyFor(handler.handle(request));
}

function writeReply(res: NodeResponseLike, reply: WebhookReply): void {
  if (res.headersSent === true) return;
  res.statusCode = reply.status;
  res.setHeader('content-type', 'application/json');
  // A request refused before its body was read to the end leaves bytes on the connection: close it.
  if (reply.status === 413 || ('error' in reply.body && reply.body.error === 'bad_request')) {
    res.setHeader('connection', 'close');
  }
  res.end(JSON.stringify(reply.body));
}

function closeConnection(req: NodeRequestLike): void {
  try {
    req.destroy?.();
  } catch {
    // Already closed: nothing left to release.
  }
}

function bridgeSettings(options: WebhookBridgeOptions) {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 0) {
    throw new ConfigurationError('maxBodyBytes must be a whole number of bytes, 0 or more.', {
      missing: ['maxBodyBytes'],
    });
  }
  if (options.publicOrigin === undefined) return { publicOrigin: undefined, maxBodyBytes };
  const url = urlOf(options.publicOrigin);
  if (url?.protocol !== 'https:' && url?.protocol !== 'http:') {
    throw new ConfigurationError(
      `publicOrigin must be an http(s) origin such as 'https://shop.example' (got an unparsable value).`,
      { missing: ['publicOrigin'] },
    );
  }
  return { publicOrigin: url.origin, maxBodyBytes };
}

function declaredLength(value: string | string[] | null | undefined): number | undefined {
  return typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : undefined;
}

function badRequest(message: string): WebhookReply {
  return { status: 400, body: { error: 'bad_request', message } };
}

function tooLarge(maxBodyBytes: number): WebhookReply {
  return {
    status: 413,
    body: { error: 'payload_too_large', message: `The webhook body is larger than ${maxBodyBytes} bytes.` },
  };
}
