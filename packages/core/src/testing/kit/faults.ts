/**
 * Fault injection shared by every simulator: arm a rule for the next matching calls, and the simulator's
 * handling of a call runs inside `run()`, which answers a status, delays, drops or corrupts as the rule says.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** What a fault does to a matching call. */
export type Fault =
  /** Answer with this status (and body/headers) instead of handling the call. */
  | { kind: 'status'; status: number; body?: string; headers?: Record<string, string> }
  /** Wait before handling the call (to trigger client timeouts). */
  | { kind: 'delay'; ms: number }
  /** Close the connection without a reply and without handling the call: the call never happened. */
  | { kind: 'drop' }
  /** Handle the call (state changes), then close the connection: the reply is lost. */
  | { kind: 'drop-after' }
  /** Handle the call, then send a malformed (truncated) body with status 200. */
  | { kind: 'malformed' };

/** A fault armed for the next `times` calls matching `method` and `path`. */
export interface FaultRule {
  method?: string;
  /**
   * The request's path exactly as it arrives (percent-encoded, no query), or a RegExp tested against it. A string
   * is never a route pattern: `/v1/refunds/:id` matches only that literal path, so it is refused (use a RegExp).
   */
  path: string | RegExp;
  /** How many matching calls the fault hits: a whole number, at least 1 (default 1). */
  times?: number;
  fault: Fault;
}

/**
 * Why `rule` can never match a request, or `undefined` when it can. The kit compares a string path with the
 * request's URL pathname, so a string that is not such a pathname (a route pattern's `:param`, `*` or `{id}`, a
 * query, a missing leading `/`, characters a URL would encode) would arm a fault that silently never fires and
 * leave a test believing it exercised a failure.
 */
function unmatchable({ method, path, times }: FaultRule): string | undefined {
  if (method !== undefined && !/^[A-Za-z]+$/.test(method))
    return `method ${JSON.stringify(method)} is no HTTP method`;
  if (times !== undefined && !(Number.isInteger(times) && times >= 1))
    return `times must be a whole number of calls, at least 1 (got ${String(times)})`;
  if (path instanceof RegExp) return undefined;
  if (typeof path !== 'string') return 'path must be a string or a RegExp';
  const pattern = path.split('/').some((segment) => segment.startsWith(':')) || path.includes('*');
  if (pattern)
    return `path ${JSON.stringify(path)} is a route pattern, but a string path is compared exactly with the request's path; use a RegExp such as /^\\/v1\\/refunds\\/[^/]+$/`;
  const arrives = new URL(path.startsWith('/') ? path : `/${path}`, 'http://127.0.0.1').pathname;
  if (arrives !== path)
    return `path ${JSON.stringify(path)} is not a request path as it arrives (a leading "/", no query, percent-encoded: ${JSON.stringify(arrives)})`;
  return undefined;
}

/** A reply computed by a simulator, not yet sent (so a fault can still drop or corrupt it). */
export interface SimulatorReply {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

/**
 * Fault injection for simulators: `inject()` arms a rule; `run()` wraps the simulator's own handling of a call
 * and applies the first matching rule.
 */
export class FaultInjector {
  readonly #rules: (FaultRule & { remaining: number })[] = [];
  /** The calls `run()` is handling now: a delayed one stays here until its delay ended and it was handled. */
  readonly #running = new Set<Promise<void>>();

  /**
   * Arms `rule` for its next `times` (default 1) matching calls. Throws a `RangeError` for a rule that could never
   * match (see {@link FaultRule.path}), so a fault a test relies on cannot be silently ignored.
   */
  inject(rule: FaultRule): void {
    const reason = unmatchable(rule);
    if (reason !== undefined) throw new RangeError(`This fault rule can never match: ${reason}.`);
    this.#rules.push({ ...rule, remaining: rule.times ?? 1 });
  }

  /** Disarms every rule. */
  clear(): void {
    this.#rules.length = 0;
  }

  /** How many armed calls are left across every rule (0 once every fault has fired). */
  get pending(): number {
    return this.#rules.reduce((sum, rule) => sum + rule.remaining, 0);
  }

  #take(method: string, path: string): Fault | undefined {
    const rule = this.#rules.find(
      (candidate) =>
        candidate.remaining > 0 &&
        (!candidate.method || candidate.method.toUpperCase() === method.toUpperCase()) &&
        (typeof candidate.path === 'string' ? candidate.path === path : candidate.path.test(path)),
    );
    if (!rule) return undefined;
    rule.remaining -= 1;
    return rule.fault;
  }

  /**
   * Runs `handle` for the call unless a fault says otherwise. `handle` computes the reply without sending it,
   * so a fault can drop or corrupt it after the state changed.
   */
  async run(req: IncomingMessage, res: ServerResponse, handle: () => Promise<SimulatorReply>): Promise<void> {
    const running = this.#apply(req, res, handle);
    this.#running.add(running);
    try {
      await running;
    } finally {
      this.#running.delete(running);
    }
  }

  /**
   * Resolves once every call the simulator is handling has been handled, those still held by a `delay` included:
   * a delayed call the client gave up on still changes the books when its delay ends, and a test reads the books
   * only after that, without sleeping out the delay (docs/architecture.md#conformance-suite).
   */
  async settled(): Promise<void> {
    do {
      // A call the client wrote just before giving up may still be unread: a turn of the event loop reads it.
      await new Promise((resolve) => setImmediate(resolve));
      await Promise.allSettled([...this.#running]);
    } while (this.#running.size > 0);
  }

  /** `run()`'s work: the first matching rule's fault, else the simulator's own reply. */
  async #apply(
    req: IncomingMessage,
    res: ServerResponse,
    handle: () => Promise<SimulatorReply>,
  ): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    const fault = this.#take(req.method ?? 'GET', path);
    if (fault?.kind === 'status') {
      res.writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers });
      res.end(fault.body ?? JSON.stringify({ error: 'injected fault' }));
      return;
    }
    if (fault?.kind === 'drop') {
      req.socket.destroy();
      return;
    }
    if (fault?.kind === 'delay') await new Promise((resolve) => setTimeout(resolve, fault.ms));
    const reply = await handle();
    if (fault?.kind === 'drop-after') {
      req.socket.destroy();
      return;
    }
    if (res.destroyed) return;
    res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    res.end(
      fault?.kind === 'malformed'
        ? reply.body.slice(0, Math.max(1, Math.floor(reply.body.length / 2)))
        : reply.body,
    );
  }
}
