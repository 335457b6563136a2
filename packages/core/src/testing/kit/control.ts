/**
 * The simulator's control route (test-only): `POST /_simulator/trigger` with `{ event, to, options?, provider? }`
 * makes the RUNNING simulator send one signed event (its own `trigger(event, { ...options, to })`) and answers
 * with what the endpoint replied. This is how `pay trigger` talks to `pay dev`, as a provider's CLI talks to its
 * test mode: the event is signed with the running simulator's keys and the transfer or transaction it reports on
 * is in the running simulator's books, so the app's signature check and its status read both agree with it.
 *
 * Guards (a simulator is a test tool, but it signs webhooks an app trusts): `/_simulator/*` answers only requests
 * from this machine (`simulatorListener` checks the peer address), only for a loopback `Host` (a page reached
 * through DNS rebinding carries its own host name), and only with a JSON body (a browser cannot send one
 * cross-origin without a CORS preflight, which the simulator never grants).
 */
import { jsonBody, type RecordedRequest } from './requests.js';
import { jsonReply, type Routes } from './routes.js';
import { isLoopbackHost, SIMULATOR_CONTROL_PREFIX } from './server.js';

/** Path of the trigger control route. */
export const SIMULATOR_TRIGGER_PATH = `${SIMULATOR_CONTROL_PREFIX}trigger`;

/** What `POST /_simulator/trigger` takes. */
export interface SimulatorTriggerRequest {
  /** The event, as the simulator's `trigger` names it (`payment.succeeded`, `PAID`, `SUCCESSFUL_TRANSACTION`). */
  event: string;
  /** Where the signed event goes (an http(s) URL). */
  to: string;
  /** Provider-specific trigger options (`transactionId`, `transId`, `eventId`…); `to` is always the one above. */
  options?: Record<string, unknown>;
  /** When given, the simulator refuses (409) unless it is this provider's (`provider-t`). */
  provider?: string;
}

/** What `POST /_simulator/trigger` answers (200): the endpoint's reply to the one delivery. */
export interface SimulatorTriggerResult {
  provider: string;
  event: string;
  to: string;
  /** The endpoint's HTTP status. */
  status: number;
  /** The endpoint's answer, as text. */
  body: string;
}

/** What the control route calls: the simulator's own `trigger`. */
export type TriggerFunction = (
  event: string,
  options: Record<string, unknown>,
) => Promise<{ status: number; body: string }>;

/** Options of {@link addTriggerRoute}. */
export interface TriggerRouteOptions {
  /** The simulator's provider name (`provider-t`), answered and compared with the request's `provider`. */
  provider: string;
  /** The simulator's `trigger` (called late, so the simulator object may be built after its routes). */
  trigger: TriggerFunction;
}

/** A JSON error reply of the control route. */
function refused(status: number, error: string) {
  return jsonReply(status, { error });
}

/** The request's fields, or the reason it is refused. */
function readTriggerRequest(request: RecordedRequest): SimulatorTriggerRequest | string {
  const body = jsonBody(request);
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return 'The body must be a JSON object { event, to, options? }.';
  const fields = body as Record<string, unknown>;
  const { event, to, options, provider } = fields;
  if (typeof event !== 'string' || event === '') return '`event` must be a non-empty string.';
  if (typeof to !== 'string' || !isHttpUrl(to)) return '`to` must be an absolute http(s) URL.';
  if (options !== undefined && (typeof options !== 'object' || options === null || Array.isArray(options)))
    return '`options` must be a JSON object.';
  if (provider !== undefined && typeof provider !== 'string') return '`provider` must be a string.';
  return {
    event,
    to,
    ...(options === undefined ? {} : { options: options as Record<string, unknown> }),
    ...(provider === undefined ? {} : { provider }),
  };
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** The network code of a failed delivery (`ECONNREFUSED`), when the error is one. */
function networkCode(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (error instanceof Error && error.name === 'TimeoutError') return 'timed out';
  // undici's own refusals (`bad port`, …) come as "fetch failed" with the reason in the cause.
  if (error instanceof TypeError && error.message === 'fetch failed')
    return cause instanceof Error ? cause.message : 'fetch failed';
  return undefined;
}

/**
 * Adds `POST /_simulator/trigger` to a simulator's routes (test-only; see the module comment for its guards).
 * Answers 200 with {@link SimulatorTriggerResult} whatever the endpoint answered, 400 for a bad request or an
 * event the simulator refuses (its message), 409 for another provider's request, 502 when the endpoint could not
 * be reached, 403/415 for the guards.
 */
export function addTriggerRoute(routes: Routes, options: TriggerRouteOptions): void {
  routes.post(SIMULATOR_TRIGGER_PATH, async (request) => {
    if (!isLoopbackHost(request.headers.host))
      return refused(403, 'The simulator control routes answer only requests addressed to a loopback host.');
    if (!/^application\/json\b/i.test(request.headers['content-type'] ?? ''))
      return refused(415, 'Send the trigger request as JSON (content-type: application/json).');
    const read = readTriggerRequest(request);
    if (typeof read === 'string') return refused(400, read);
    if (read.provider !== undefined && read.provider !== options.provider)
      return refused(
        409,
        `This is the ${options.provider} simulator, not ${read.provider}: start pay dev ${read.provider} on another port.`,
      );
    let reply: { status: number; body: string };
    try {
      reply = await options.trigger(read.event, { ...read.options, to: read.to });
    } catch (error) {
      const code = networkCode(error);
      if (code !== undefined) return refused(502, `The event was not delivered to ${read.to} (${code}).`);
      return refused(400, error instanceof Error ? error.message : String(error));
    }
    const result: SimulatorTriggerResult = {
      provider: options.provider,
      event: read.event,
      to: read.to,
      status: reply.status,
      body: reply.body,
    };
    return jsonReply(200, result);
  });
}

/** Why {@link triggerOnSimulator} could not get a trigger result. */
export class SimulatorTriggerError extends Error {
  override readonly name = 'SimulatorTriggerError';
  /**
   * `unreachable`: nothing answered at the simulator's URL (`code` says why); `not_simulator`: something answered
   * but not a simulator's control route; `refused`: the simulator refused the request (`status`, its message).
   */
  readonly reason: 'unreachable' | 'not_simulator' | 'refused';
  readonly status: number | undefined;
  readonly code: string | undefined;

  constructor(
    message: string,
    details: { reason: SimulatorTriggerError['reason']; status?: number; code?: string; cause?: unknown },
  ) {
    super(message, details.cause === undefined ? {} : { cause: details.cause });
    this.reason = details.reason;
    this.status = details.status;
    this.code = details.code;
  }
}

/**
 * Asks the simulator running at `simulatorUrl` (e.g. `pay dev`'s `http://127.0.0.1:4010`) to send one signed
 * event, and resolves with the endpoint's reply. Throws {@link SimulatorTriggerError}.
 */
export async function triggerOnSimulator(
  simulatorUrl: string,
  request: SimulatorTriggerRequest,
  timeoutMs = 30_000,
): Promise<SimulatorTriggerResult> {
  const url = new URL(SIMULATOR_TRIGGER_PATH, simulatorUrl).href;
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(request),
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const code = networkCode(error) ?? (error instanceof Error ? error.message : String(error));
    throw new SimulatorTriggerError(`No simulator answers at ${simulatorUrl} (${code}).`, {
      reason: 'unreachable',
      code,
      cause: error,
    });
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (response.status === 200 && typeof fields.status === 'number' && typeof fields.body === 'string')
    return fields as unknown as SimulatorTriggerResult;
  if (typeof fields.error === 'string' && response.status !== 404)
    throw new SimulatorTriggerError(fields.error, { reason: 'refused', status: response.status });
  throw new SimulatorTriggerError(
    `${simulatorUrl} answered HTTP ${response.status} to POST ${SIMULATOR_TRIGGER_PATH}: it is not a @pay simulator with the trigger control route (an older version, or another server on that port).`,
    { reason: 'not_simulator', status: response.status },
  );
}
