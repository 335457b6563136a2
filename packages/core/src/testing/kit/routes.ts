/**
 * Small routing helpers for simulators: a table of `METHOD /path/:param` routes whose handlers compute a reply
 * (never write it), and the listener that reads and logs each request, runs it through the fault injector and
 * the routes. A simulator is then its state plus one route table.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FaultInjector, type SimulatorReply } from './faults.js';
import type { RecordedRequest, RequestLog } from './requests.js';
import { isLoopbackAddress, SIMULATOR_CONTROL_PREFIX } from './server.js';

/** A request as a route sees it: the recorded request plus the decoded `:param` segments of its path. */
export interface RouteRequest extends RecordedRequest {
  params: Record<string, string>;
}

/** Computes the reply of one route (sync or async). */
export type RouteHandler = (request: RouteRequest) => SimulatorReply | Promise<SimulatorReply>;

interface Route {
  method: string;
  segments: string[];
  handler: RouteHandler;
}

/** A JSON reply. */
export function jsonReply(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): SimulatorReply {
  return { status, body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } };
}

/**
 * An HTML reply (UTF-8) that no other page may frame (`X-Frame-Options` for older browsers, CSP
 * `frame-ancestors` for current ones): a hosted page's buttons move money in the simulator's books, and a
 * framed page could be hidden under another site's button (docs/architecture.md#pay-dev).
 */
export function htmlReply(status: number, html: string): SimulatorReply {
  return {
    status,
    body: html,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'x-frame-options': 'DENY',
      'content-security-policy': "frame-ancestors 'none'",
    },
  };
}

/** A plain-text reply (UTF-8). */
export function textReply(status: number, text: string): SimulatorReply {
  return { status, body: text, headers: { 'content-type': 'text/plain; charset=utf-8' } };
}

/** A redirect (303 See Other by default: the browser follows a form POST with a GET). */
export function redirectReply(location: string, status = 303): SimulatorReply {
  return { status, body: '', headers: { location, 'content-type': 'text/plain; charset=utf-8' } };
}

/**
 * A route table: `routes.get('/v1/refunds/:refundReference', handler)`. Patterns are matched segment by segment;
 * a `:name` segment matches one non-empty segment and is URL-decoded into `params.name`.
 */
export class Routes {
  readonly #routes: Route[] = [];

  /** Adds a route for `method` (upper-cased) and `pattern`. */
  on(method: string, pattern: string, handler: RouteHandler): this {
    this.#routes.push({ method: method.toUpperCase(), segments: pattern.split('/'), handler });
    return this;
  }

  /** Adds a GET route. */
  get(pattern: string, handler: RouteHandler): this {
    return this.on('GET', pattern, handler);
  }

  /** Adds a POST route. */
  post(pattern: string, handler: RouteHandler): this {
    return this.on('POST', pattern, handler);
  }

  /**
   * The reply of the first matching route, `undefined` when none matches. A `:param` segment that is not valid
   * percent-encoding is answered 400 rather than thrown.
   */
  async handle(request: RecordedRequest): Promise<SimulatorReply | undefined> {
    const segments = request.path.split('/');
    for (const route of this.#routes) {
      if (route.method !== request.method || route.segments.length !== segments.length) continue;
      const params = matchSegments(route.segments, segments);
      if (params === undefined) continue;
      if (params === null) return textReply(400, `Malformed path ${request.path}`);
      return route.handler({ ...request, params });
    }
    return undefined;
  }
}

/** The params when `actual` matches `pattern`; `undefined` when not; `null` when a param is badly encoded. */
function matchSegments(pattern: string[], actual: string[]): Record<string, string> | undefined | null {
  const params: Record<string, string> = {};
  for (const [index, expected] of pattern.entries()) {
    const segment = actual[index] ?? '';
    if (!expected.startsWith(':')) {
      if (segment !== expected) return undefined;
      continue;
    }
    if (segment === '') return undefined;
    try {
      params[expected.slice(1)] = decodeURIComponent(segment);
    } catch {
      return null;
    }
  }
  return params;
}

/** Options of {@link simulatorListener}. */
export interface SimulatorListenerOptions {
  routes: Routes;
  requests: RequestLog;
  /** Defaults to a fresh injector (no faults). */
  faults?: FaultInjector;
  /** The reply when no route matches (default: 404 JSON `{ error }`). */
  notFound?: (request: RecordedRequest) => SimulatorReply;
}

/**
 * The listener for {@link startLoopbackServer}: log the request, then faults, then routes. The control routes
 * (`/_simulator/…`, test-only) skip the fault injector and answer 403 to a peer that is not this machine,
 * whatever interface the server listens on.
 */
export function simulatorListener(
  options: SimulatorListenerOptions,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const faults = options.faults ?? new FaultInjector();
  const notFound =
    options.notFound ??
    ((request: RecordedRequest) => jsonReply(404, { error: `No route ${request.method} ${request.path}` }));
  return async (req, res) => {
    // The status answered joins the request's log entry (`pay dev`'s event log shows each read with it); a
    // connection dropped without a reply never finishes, and its entry keeps no status.
    let recorded: RecordedRequest | undefined;
    res.once('finish', () => {
      if (recorded !== undefined) recorded.status = res.statusCode;
    });
    const request = await options.requests.receive(req);
    recorded = request;
    if (request.path.startsWith(SIMULATOR_CONTROL_PREFIX)) {
      // A control call is the test's own, not a call to the provider: no fault armed for the wire applies to it.
      const reply = !isLoopbackAddress(req.socket.remoteAddress)
        ? jsonReply(403, { error: 'The simulator control routes answer only this machine.' })
        : ((await options.routes.handle(request)) ?? notFound(request));
      res.writeHead(reply.status, reply.headers);
      res.end(reply.body);
      return;
    }
    await faults.run(req, res, async () => (await options.routes.handle(request)) ?? notFound(request));
  };
}
