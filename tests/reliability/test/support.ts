/**
 * Helpers shared by the fault, secrets and bad-input tests: the fault kinds of the matrix and what each one
 * must produce, hooks that record every attempt (and arm a fault on the n-th call of a path), and a deep scan
 * of errors and hook payloads for secret values.
 */
import {
  type HttpHooks,
  type HttpRequestInfo,
  type HttpResponseInfo,
  InvalidResponseError,
  NetworkError,
  PayError,
  ProviderApiError,
} from '@pay/core';
import type { Fault, FaultInjector } from '@pay/core/testing';
import { expect } from 'vitest';

/** What `action` throws synchronously; fails the test when it returns. */
export function thrownBy(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw, but it returned');
}

/** Resolves with what `promise` rejects with; fails the test when it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to reject, but it resolved');
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The faults of the matrix (docs/architecture.md#test-suites): status faults, a timeout, a dropped connection, a
 * lost reply, bad bodies.
 */
export const FAULT_KINDS = [
  '500',
  '502',
  '503',
  '429',
  'timeout',
  'drop',
  'drop-after',
  'malformed',
  'wrong-shape',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/**
 * Per-attempt timeout of the adapters in timeout cases, and the simulator delay that exceeds it. The timeout
 * applies to every call of a case, not only the faulted one: 200 ms let an unfaulted call time out on a loaded
 * CI machine, which the matrix then read as the fault's attempt.
 */
export const TIMEOUT_MS = 500;
export const DELAY_MS = 900;

/** A 200 JSON body that matches no provider's wire contract (docs/providers/). */
export const WRONG_SHAPE_BODY = JSON.stringify({ result: 'ok', items: [1, 2, 3] });

/** The simulator fault for a kind. 502/503/429 carry `Retry-After: 0` (fast); 500 uses the default backoff. */
export function faultFor(kind: FaultKind): Fault {
  switch (kind) {
    case '500':
      return { kind: 'status', status: 500 };
    case '502':
    case '503':
    case '429':
      return { kind: 'status', status: Number(kind), headers: { 'retry-after': '0' } };
    case 'timeout':
      return { kind: 'delay', ms: DELAY_MS };
    case 'drop':
      return { kind: 'drop' };
    case 'drop-after':
      return { kind: 'drop-after' };
    case 'malformed':
      return { kind: 'malformed' };
    case 'wrong-shape':
      return { kind: 'status', status: 200, body: WRONG_SHAPE_BODY };
  }
}

/** True when the simulator handled the call (its state changed) even though the client got no usable reply. */
export function processedBy(kind: FaultKind): boolean {
  return kind === 'timeout' || kind === 'drop-after' || kind === 'malformed';
}

/** True when the HTTP client retries a retry-safe call after this fault. */
export function retriedOn(kind: FaultKind): boolean {
  return kind !== 'malformed' && kind !== 'wrong-shape';
}

/** The attempts the client makes of a call under a persistent fault. */
export function expectedAttempts(kind: FaultKind, retrySafe: boolean, retry: number): number {
  return retrySafe && retriedOn(kind) ? retry + 1 : 1;
}

/**
 * Asserts the typed error a persistent fault of `kind` must produce, with its fields. `networkOutcome` is the
 * `outcome` a network failure must report (`unknown` unless the call provably was not sent).
 */
export function expectFaultError(
  error: unknown,
  kind: FaultKind,
  options: {
    networkOutcome?: 'unknown' | 'not_sent';
    context?: Record<string, unknown> | undefined;
    /** `retryable` of a provider error (default: true, as for any 429/5xx). */
    retryable?: boolean;
  } = {},
): void {
  expect(PayError.isInstance(error), `expected a PayError, got ${String(error)}`).toBe(true);
  const context = options.context === undefined ? {} : { context: expect.objectContaining(options.context) };
  switch (kind) {
    case '500':
    case '502':
    case '503':
    case '429':
      expect(ProviderApiError.isInstance(error), String(error)).toBe(true);
      expect(error).toMatchObject({
        code: 'provider_api_error',
        status: Number(kind),
        retryable: options.retryable ?? true,
        ...context,
      });
      return;
    case 'timeout':
    case 'drop':
    case 'drop-after':
      expect(NetworkError.isInstance(error), String(error)).toBe(true);
      expect(error).toMatchObject({
        code: 'network_error',
        outcome: options.networkOutcome ?? 'unknown',
        ...context,
      });
      // The timeout is named in the message, or in the cause it wraps (a login that timed out).
      if (kind === 'timeout')
        expect(causeChain(error).map((e) => (e as Error).message)).toContainEqual(
          expect.stringMatching(/timed out/),
        );
      return;
    case 'malformed':
    case 'wrong-shape':
      expect(InvalidResponseError.isInstance(error), String(error)).toBe(true);
      expect(error).toMatchObject({ code: 'invalid_response', ...context });
      return;
  }
}

/** `error` and its `cause` chain (bounded). */
export function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let current = error; current !== undefined && current !== null && chain.length < 10; ) {
    chain.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

/** A call as the adapter's hooks saw it. */
export interface Attempt {
  method: string;
  path: string;
  requestId: string;
  attempt: number;
}

/** What a recorder saw; `hooks` goes into the adapter config. */
export interface Recorder {
  hooks: HttpHooks;
  attempts: Attempt[];
  requests: HttpRequestInfo[];
  responses: HttpResponseInfo[];
  /** Attempts of `method path` (path tested against the URL pathname). */
  of(method: string, path: string | RegExp): Attempt[];
}

function matches(path: string, pattern: string | RegExp): boolean {
  return typeof pattern === 'string' ? path === pattern : pattern.test(path);
}

/**
 * Hooks that record every attempt, and optionally arm `fault` on the `nth` (0-based) logical call of
 * `method path`, just before it is sent, for `times` attempts. Arming from the hook lets a test fault the second
 * status read of an operation while the first one passes.
 */
export function recorder(
  arm?: {
    faults: FaultInjector;
    method: string;
    path: string | RegExp;
    nth?: number;
    times: number;
    fault: Fault;
  },
  basePath = '',
): Recorder {
  const attempts: Attempt[] = [];
  const requests: HttpRequestInfo[] = [];
  const responses: HttpResponseInfo[] = [];
  let seen = 0;
  return {
    attempts,
    requests,
    responses,
    of: (method, path) => attempts.filter((a) => a.method === method && matches(a.path, path)),
    hooks: {
      onRequest(info) {
        requests.push(info);
        const path = new URL(info.url).pathname.slice(basePath.length);
        attempts.push({ method: info.method, path, requestId: info.requestId, attempt: info.attempt });
        if (arm && info.attempt === 1 && info.method === arm.method && matches(path, arm.path)) {
          if (seen === (arm.nth ?? 0)) {
            arm.faults.inject({ method: arm.method, path: arm.path, times: arm.times, fault: arm.fault });
          }
          seen += 1;
        }
      },
      onResponse(info) {
        responses.push(info);
      },
    },
  };
}

/** How an operation ended: its value, or what it threw. */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/**
 * One case of a fault matrix: arms `kind` on the `nth` call to `method path` for `times` attempts, runs the
 * operation on an adapter built with recording hooks (and a short timeout for the `timeout` fault), and waits
 * out a delayed call's late handling so the simulator's books are final before they are read.
 */
export async function runFaulted<A, R>(options: {
  faults: FaultInjector;
  method: string;
  path: RegExp;
  nth?: number;
  times: number;
  kind: FaultKind;
  adapter: (overrides: { hooks: HttpHooks; timeoutMs?: number }) => A;
  run: (adapter: A) => Promise<R>;
}): Promise<{ rec: Recorder; outcome: Settled<R> }> {
  const { kind } = options;
  const rec = recorder({
    faults: options.faults,
    method: options.method,
    path: options.path,
    ...(options.nth === undefined ? {} : { nth: options.nth }),
    times: options.times,
    fault: faultFor(kind),
  });
  const adapter = options.adapter({
    hooks: rec.hooks,
    ...(kind === 'timeout' ? { timeoutMs: TIMEOUT_MS } : {}),
  });
  const outcome = await options.run(adapter).then(
    (value): Settled<R> => ({ ok: true, value }),
    (error: unknown): Settled<R> => ({ ok: false, error }),
  );
  // A delayed call is still handled after the client gave up: wait until the simulator has handled it before
  // reading the books (an event, not a sleep guessing how late a loaded machine handles it).
  await options.faults.settled();
  return { rec, outcome };
}

/**
 * Every string reachable from `value`: own properties (enumerable or not) of objects and errors, array items,
 * `message`, `stack` and `cause` chains, `JSON.stringify` of each object, plus `String(value)`. Bounded.
 */
export function reachableText(value: unknown): string[] {
  const out: string[] = [];
  const seen = new Set<unknown>();
  const visit = (item: unknown, depth: number) => {
    if (depth > 12) return;
    if (typeof item === 'string') {
      out.push(item);
      return;
    }
    if (typeof item === 'number' || typeof item === 'boolean' || typeof item === 'bigint') {
      out.push(String(item));
      return;
    }
    if (item === null || (typeof item !== 'object' && typeof item !== 'function')) return;
    if (seen.has(item)) return;
    seen.add(item);
    if (typeof item === 'function') return;
    try {
      out.push(JSON.stringify(item) ?? '');
    } catch {
      // circular or throwing toJSON: the properties are still walked below
    }
    try {
      out.push(String(item));
    } catch {
      // objects without a string form
    }
    if (item instanceof Headers) {
      for (const [name, headerValue] of item) out.push(`${name}: ${headerValue}`);
      return;
    }
    if (item instanceof Error) {
      out.push(item.message, item.stack ?? '');
      visit(item.cause, depth + 1);
    }
    for (const key of Reflect.ownKeys(item)) {
      let child: unknown;
      try {
        child = (item as Record<PropertyKey, unknown>)[key];
      } catch {
        continue;
      }
      if (typeof key === 'string') out.push(key);
      visit(child, depth + 1);
    }
  };
  visit(value, 0);
  return out;
}

/** Spellings a secret may take on the wire or in logs. */
export function spellingsOf(secret: string): string[] {
  return [
    ...new Set([
      secret,
      encodeURIComponent(secret),
      new URLSearchParams({ s: secret }).toString().slice(2),
      JSON.stringify(secret).slice(1, -1),
      btoa(secret),
    ]),
  ];
}

/** Asserts that no spelling of any secret occurs in anything reachable from `value`. */
export function expectNoSecrets(value: unknown, secrets: readonly string[], label = 'value'): void {
  const texts = reachableText(value);
  for (const secret of secrets) {
    for (const spelling of spellingsOf(secret)) {
      const leak = texts.find((text) => text.includes(spelling));
      expect(leak, `${label} contains the secret "${secret}" (as "${spelling}")`).toBeUndefined();
    }
  }
}

/**
 * Every value an Authorization header exposes (docs/architecture.md#redaction): the header value, its credential
 * after the scheme, and for Basic the decoded `user:secret` and both halves.
 */
export function credentialValues(authorization: string): string[] {
  const values = [authorization];
  const credential = authorization.replace(/^\S+\s+/, '');
  if (credential === authorization) return values;
  values.push(credential);
  if (!/^basic\s/i.test(authorization)) return values;
  const decoded = atob(credential);
  const colon = decoded.indexOf(':');
  values.push(decoded, decoded.slice(0, colon), decoded.slice(colon + 1));
  return values;
}

/** How an echoing gateway wraps what it echoes into one provider's error envelope. */
export type EchoBody = (echoed: string) => string;

/**
 * A fetch in front of a simulator that behaves like a misconfigured gateway: on calls whose path matches
 * `echoOn`, it answers `status` with a body (built by `body`) and reply headers that echo the request's
 * Authorization value, its decoded credential and every access token seen so far. Everything secret it sees
 * (Authorization spellings, tokens in login replies) goes into `found`.
 */
export function echoingFetch(
  found: Set<string>,
  options: { echoOn: RegExp; status: number; body: EchoBody },
): typeof fetch {
  const tokens = new Set<string>();
  return async (input, init) => {
    const request = new Request(input, init);
    const authorization = request.headers.get('authorization');
    if (authorization) for (const value of credentialValues(authorization)) found.add(value);
    const path = new URL(request.url).pathname;
    if (authorization && options.echoOn.test(path)) {
      const echoed = [...credentialValues(authorization), ...tokens].join(' | ');
      return new Response(options.body(echoed), {
        status: options.status,
        headers: {
          'content-type': 'application/json',
          'x-echo-authorization': authorization,
          'x-request-id': `req ${echoed}`,
          'www-authenticate': `${authorization.split(' ')[0]} realm="${echoed}"`,
        },
      });
    }
    const response = await fetch(request);
    const text = await response.clone().text();
    for (const match of text.matchAll(/"(?:access_token|accessToken)"\s*:\s*"([^"]+)"/g)) {
      if (match[1]) {
        found.add(match[1]);
        tokens.add(match[1]);
      }
    }
    return response;
  };
}
