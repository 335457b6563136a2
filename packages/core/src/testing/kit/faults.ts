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
  /** Exact path (no query) or a pattern tested against it. */
  path: string | RegExp;
  times?: number;
  fault: Fault;
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

  /** Arms `rule` for its next `times` (default 1) matching calls. */
  inject(rule: FaultRule): void {
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
