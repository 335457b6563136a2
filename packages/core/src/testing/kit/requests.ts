/**
 * The request log and the request shape every simulator route sees: what arrived, as it arrived (headers
 * lower-cased, the body as raw text), so tests can assert the exact upstream call an adapter made.
 */
import type { IncomingMessage } from 'node:http';
import { MAX_REQUEST_BODY_BYTES, RequestBodyTooLargeError, readRequestBody } from './server.js';

/** One request a simulator received. */
export interface RecordedRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  query: Record<string, string>;
  /** Header names lower-cased; repeated headers joined with `, `. */
  headers: Record<string, string>;
  /**
   * The body as received (empty string when none). Empty too for a body over the log's limit, which is refused
   * 413 unread: the log never holds more than the limit per request.
   */
  body: string;
  /** The request id the client sent in the simulator's request-id header, else one the simulator made up. */
  requestId: string;
  /** ISO time the request was received. */
  at: string;
  /**
   * The HTTP status the simulator answered, set once the reply is sent (by `simulatorListener`); absent while it
   * is handled, for a request whose connection was dropped without a reply, and for one refused 413 unread.
   */
  status?: number;
}

/** Options of {@link RequestLog}. */
export interface RequestLogOptions {
  /** Header carrying the client's request id (lower-case), e.g. `x-request-id`. */
  requestIdHeader?: string;
  /** Called for each request as it is recorded (the `pay dev` console log). */
  onRequest?: (request: RecordedRequest) => void;
  /** Largest body read, in bytes (default {@link MAX_REQUEST_BODY_BYTES}); a larger one is answered 413. */
  maxBodyBytes?: number;
}

/** Every request a simulator received, in order, including refused and faulted ones. */
export class RequestLog {
  readonly #entries: RecordedRequest[] = [];
  readonly #options: RequestLogOptions;
  #sequence = 0;
  #forgotten = 0;

  /** A log reading request ids from `options.requestIdHeader`. */
  constructor(options: RequestLogOptions = {}) {
    this.#options = options;
  }

  /** The requests so far (a live read-only view). */
  get entries(): readonly RecordedRequest[] {
    return this.#entries;
  }

  /**
   * Forgets the oldest requests beyond the last `keep`, so a long `pay dev` session stays small
   * (docs/architecture.md#pay-dev; it calls this after logging what it has not logged yet); {@link forgotten}
   * counts them. Throws a `RangeError` for a `keep` that is not a positive integer.
   */
  forgetOldest(keep: number): void {
    if (!(Number.isInteger(keep) && keep > 0))
      throw new RangeError(`The number of requests to keep is a positive integer, got ${String(keep)}.`);
    const excess = this.#entries.length - keep;
    if (excess <= 0) return;
    this.#entries.splice(0, excess);
    this.#forgotten += excess;
  }

  /** How many requests {@link forgetOldest} forgot. */
  get forgotten(): number {
    return this.#forgotten;
  }

  /**
   * Reads `req`'s body and records it; returns the record (routes get the same object). A body over the limit
   * is recorded empty and {@link RequestBodyTooLargeError} thrown, which the loopback server answers 413.
   */
  async receive(req: IncomingMessage): Promise<RecordedRequest> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    const at = new Date().toISOString();
    let body = '';
    let tooLarge: RequestBodyTooLargeError | undefined;
    try {
      body = await readRequestBody(req, this.#options.maxBodyBytes ?? MAX_REQUEST_BODY_BYTES);
    } catch (error) {
      if (!(error instanceof RequestBodyTooLargeError)) throw error;
      tooLarge = error;
    }
    this.#sequence += 1;
    const header = this.#options.requestIdHeader?.toLowerCase();
    const sent = header !== undefined && Object.hasOwn(headers, header) ? headers[header] : undefined;
    const request: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers,
      body,
      requestId: sent || `sim_req_${String(this.#sequence).padStart(6, '0')}`,
      at,
    };
    this.#entries.push(request);
    this.#options.onRequest?.(request);
    if (tooLarge) throw tooLarge;
    return request;
  }

  /** The requests matching `method` and `path` (exact path or pattern). */
  find(method: string, path: string | RegExp): RecordedRequest[] {
    return this.#entries.filter(
      (entry) =>
        entry.method === method.toUpperCase() &&
        (typeof path === 'string' ? entry.path === path : path.test(entry.path)),
    );
  }

  /** Forgets every recorded request. */
  clear(): void {
    this.#entries.length = 0;
  }
}

/** The body as JSON, or `undefined` when it is empty or not JSON (a route then refuses it its own way). */
export function jsonBody(request: RecordedRequest): unknown {
  if (request.body === '') return undefined;
  try {
    return JSON.parse(request.body) as unknown;
  } catch {
    return undefined;
  }
}

/** The body as an HTML form (`application/x-www-form-urlencoded`), one value per field. */
export function formBody(request: RecordedRequest): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(request.body));
}
