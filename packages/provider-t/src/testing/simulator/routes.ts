/**
 * The HTTP routes of the Provider T simulator, as a kit route table: the token endpoint, the hosted receipt
 * pages, and the API routes behind the bearer check and the `X-Client-Request-Id` check, where a repeated request
 * id replays its first answer (docs/providers/provider-t.md#authentication).
 */
import type { RecordedRequest, RouteHandler, RouteRequest, Routes } from '@pay/core/testing';
import { amendName, amendRead, refundCommit, refundRead } from './after-commit.js';
import { addReceiptPages, type ReceiptPagesOptions } from './pages.js';
import { type Json, providerError, type Reply, UUID } from './replies.js';
import type { SimulatorContext } from './state.js';
import type { ProviderTTokens } from './tokens.js';
import { commit, quote, status, update } from './transfers.js';

/** What the routes need, and the kit's route table they are added to. */
export interface RouteParts {
  routes: Routes;
  context: SimulatorContext;
  tokens: ProviderTTokens;
  pages: Omit<ReceiptPagesOptions, 'context'>;
}

/** A call past the checks: its request id, and for a mutation the parsed JSON body. */
type ApiHandler = (request: RouteRequest, requestId: string, body: Json) => Reply;

/**
 * Adds the provider's routes to `parts.routes`; returns the answer to a path they do not know (after the same
 * checks as a known one).
 */
export function addRoutes(parts: RouteParts): (request: RecordedRequest) => Reply {
  const { context, tokens } = parts;
  const replies = new Map<string, { method: string; path: string; reply: Reply }>();

  /** The bearer and request-id checks every API call passes first; `undefined` when they pass. */
  function refusal(request: RecordedRequest): Reply | undefined {
    if (!tokens.authorised(request.headers))
      return providerError(401, 'UNAUTHORIZED', 'The access token is missing, invalid or expired');
    const requestId = request.headers['x-client-request-id'];
    if (!requestId) return providerError(400, 'MISSING_REQUEST_ID', 'X-Client-Request-Id is required');
    // The wire contract's (docs/providers/provider-t.md#authentication) request id is a UUID ("Authentication"): anything else is refused, so an adapter that
    // sent a raw idempotency key would be caught here.
    if (!UUID.test(requestId))
      return providerError(400, 'INVALID_REQUEST_ID', 'X-Client-Request-Id must be a UUID', [
        'X-Client-Request-Id',
      ]);
    return undefined;
  }

  /** A read: the checks, then the handler. */
  const read =
    (handler: (request: RouteRequest, query: URLSearchParams) => Reply): RouteHandler =>
    (request) =>
      refusal(request) ?? handler(request, new URLSearchParams(request.query));

  /**
   * A mutation: the checks, then a repeated request id is the same request (docs/providers/provider-t.md#authentication): its
   * original answer again, never a second quote, commit or refund. Answers under 500 are kept for replays.
   */
  const mutation =
    (handler: ApiHandler): RouteHandler =>
    (request) => {
      const refused = refusal(request);
      if (refused) return refused;
      const requestId = request.headers['x-client-request-id'] as string;
      const previous = replies.get(requestId);
      if (previous && previous.method === request.method && previous.path === request.path) {
        context.books.replays += 1;
        return previous.reply;
      }
      let body: Json;
      try {
        body = JSON.parse(request.body) as Json;
      } catch {
        return providerError(400, 'INVALID_JSON', 'The body is not JSON');
      }
      const reply = handler(request, requestId, body);
      if (reply.status < 500) replies.set(requestId, { method: request.method, path: request.path, reply });
      return reply;
    };

  const id = (request: RouteRequest) => request.params.id as string;
  parts.routes
    .get('/oauth/accesstoken', (request) => tokens.issue(request.query, request.headers))
    .get(
      '/status/v1/transactions/:id',
      read((request, query) => status(context, id(request), query)),
    )
    .get(
      '/amend/v1/transactions/:id',
      read((request, query) => amendRead(context, id(request), query)),
    )
    .get(
      '/refund/v2/transactions/:id',
      read((request, query) => refundRead(context, id(request), query)),
    )
    .post(
      '/transfer/v1/transactions/quote',
      mutation((_request, _requestId, body) => quote(context, body)),
    )
    .on(
      'PUT',
      '/transfer/v1/transactions/:id',
      mutation((request, _requestId, body) => update(context, id(request), body)),
    )
    .on(
      'PUT',
      '/transfer/v1/transactions/:id/commit',
      mutation((request, requestId, body) => commit(context, id(request), body, requestId)),
    )
    .on(
      'PATCH',
      '/amend/v1/transactions/:id/receiver/name',
      mutation((request, _requestId, body) => amendName(context, id(request), body)),
    )
    .on(
      'PUT',
      '/refund/v2/transactions/:id/commit',
      mutation((request, requestId, body) => refundCommit(context, id(request), body, requestId)),
    );
  addReceiptPages(parts.routes, { context, ...parts.pages });

  // An unknown path is refused like a known one first (401 without a token), then answered 404.
  return (request) =>
    refusal(request) ?? providerError(404, 'NOT_FOUND', `No route for ${request.method} ${request.path}`);
}
