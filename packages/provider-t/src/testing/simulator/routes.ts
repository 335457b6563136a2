/**
 * The HTTP face of the Provider T simulator: records every request, applies armed faults, issues tokens, serves
 * the hosted receipt pages, checks the bearer token and the `X-Client-Request-Id`, replays a repeated request id,
 * and dispatches to the transfer, amendment and refund routes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type FaultInjector, readRequestBody } from '@pay/core/testing';
import { amendName, amendRead, refundCommit, refundRead } from './after-commit.js';
import { receiptPage } from './pages.js';
import { type Json, providerError, type Reply, UUID } from './replies.js';
import type { SimulatorContext } from './state.js';
import type { ProviderTTokens } from './tokens.js';
import { commit, quote, status, update } from './transfers.js';
import type { RecordedRequest } from './types.js';

/** What the listener needs. */
export interface ListenerParts {
  context: SimulatorContext;
  tokens: ProviderTTokens;
  faults: FaultInjector;
  /** The request log it appends to. */
  requests: RecordedRequest[];
}

/** The simulator's request listener. */
export function createListener(parts: ListenerParts) {
  const { context, tokens, faults, requests } = parts;
  const replies = new Map<string, { method: string; path: string; reply: Reply }>();

  /** Routes a call the token check has passed. Mutations are replayed by request id (wire contract). */
  function route(
    method: string,
    path: string,
    query: URLSearchParams,
    headers: Record<string, string>,
    text: string,
  ): Reply {
    const requestId = headers['x-client-request-id'];
    if (!requestId) return providerError(400, 'MISSING_REQUEST_ID', 'X-Client-Request-Id is required');
    // The wire contract's request id is a UUID ("Authentication"): anything else is refused, so an adapter that
    // sent a raw idempotency key would be caught here.
    if (!UUID.test(requestId))
      return providerError(400, 'INVALID_REQUEST_ID', 'X-Client-Request-Id must be a UUID', [
        'X-Client-Request-Id',
      ]);
    const segments = path.split('/').slice(1).map(decodeURIComponent);
    const [area, version, resource, id, action] = segments;
    if (method === 'GET') {
      const read = resource === 'transactions' && id && !action;
      if (read && area === 'status' && version === 'v1') return status(context, id, query);
      if (read && area === 'amend' && version === 'v1') return amendRead(context, id, query);
      if (read && area === 'refund' && version === 'v2') return refundRead(context, id, query);
      return providerError(404, 'NOT_FOUND', `No route for GET ${path}`);
    }
    // A repeated request id is the same request (wire contract "Authentication"): its original answer again,
    // never a second quote, commit or refund.
    const previous = replies.get(requestId);
    if (previous && previous.method === method && previous.path === path) {
      context.books.replays += 1;
      return previous.reply;
    }
    let body: Json;
    try {
      body = JSON.parse(text) as Json;
    } catch {
      return providerError(400, 'INVALID_JSON', 'The body is not JSON');
    }
    const reply = mutate(method, segments, body, requestId);
    if (reply.status < 500) replies.set(requestId, { method, path, reply });
    return reply;
  }

  function mutate(method: string, segments: string[], body: Json, requestId: string): Reply {
    const [area, version, resource, id, action, detail] = segments;
    if (area === 'transfer' && version === 'v1' && resource === 'transactions') {
      if (method === 'POST' && id === 'quote' && !action) return quote(context, body);
      if (method === 'PUT' && id && !action) return update(context, id, body);
      if (method === 'PUT' && id && action === 'commit' && !detail)
        return commit(context, id, body, requestId);
    }
    if (
      method === 'PATCH' &&
      area === 'amend' &&
      version === 'v1' &&
      id &&
      action === 'receiver' &&
      detail === 'name'
    )
      return amendName(context, id, body);
    if (method === 'PUT' && area === 'refund' && version === 'v2' && id && action === 'commit')
      return refundCommit(context, id, body, requestId);
    return providerError(404, 'NOT_FOUND', `No route for ${method} /${segments.join('/')}`);
  }

  return async function listener(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = req.method ?? 'GET';
    const text = await readRequestBody(req);
    const headers = Object.fromEntries(
      Object.entries(req.headers).map(([name, value]) => [
        name.toLowerCase(),
        Array.isArray(value) ? value.join(', ') : String(value),
      ]),
    );
    requests.push({
      method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers,
      body: text,
      requestId: headers['x-client-request-id'],
    });
    await faults.run(req, res, async () => {
      if (method === 'GET' && url.pathname === '/oauth/accesstoken')
        return tokens.issue(url.searchParams, headers);
      if (url.pathname.startsWith('/receipts/')) {
        return receiptPage(context, {
          method,
          token: decodeURIComponent(url.pathname.slice('/receipts/'.length)),
          headers,
          body: text,
        });
      }
      if (!tokens.authorised(headers))
        return providerError(401, 'UNAUTHORIZED', 'The access token is missing, invalid or expired');
      return route(method, url.pathname, url.searchParams, headers, text);
    });
  };
}
