/**
 * The HTTP client every adapter uses (docs/architecture.md#http-client): the client's settings, and each call's
 * tracing and redaction around the {@link UpstreamCall} that sends it.
 */
import type { CallOptions } from '../adapter.js';
import {
  callTraceOf,
  describeCall,
  httpTraceFields,
  httpTracing,
  traceCall,
} from '../diagnostics/http-tracing.js';
import { ambientLogger, createLogger } from '../diagnostics/logger.js';
import { assertCallSettings } from '../operation-context.js';
import { CredentialSet, redactError } from '../redaction.js';
import { type AttemptTracing, type ClientParts, UpstreamCall } from './call.js';
import { buildUrl } from './paths.js';
import type { HttpClient, HttpClientOptions, HttpReply, HttpRequest } from './types.js';

/** Creates an adapter's HTTP client. No I/O happens until the first `send`. */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  const retries = options.retry ?? 2;
  if (!Number.isInteger(retries) || retries < 0)
    throw new RangeError('retry must be a whole number of retries (0 for none)');
  const timeoutMs = options.timeoutMs ?? 30_000;
  const credentials = new CredentialSet(options.secrets ?? []);
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  // The adapter's own logger, else the one of the `createPay` call this runs in (docs/architecture.md#logger).
  const ownLogger =
    options.logger === undefined ? undefined : createLogger(options.logger, () => credentials.values());
  const parts: ClientParts = {
    provider: options.provider,
    authorization: options.authorization,
    requestIdHeader: options.requestIdHeader,
    fetch: options.fetch ?? globalThis.fetch,
    hooks: options.hooks,
    listening: Boolean(options.hooks?.onRequest || options.hooks?.onResponse),
    credentials,
    logger: () => ownLogger ?? ambientLogger(),
    backoffBaseMs: options.backoffBaseMs ?? 300,
  };

  return {
    rememberSecrets(secrets) {
      for (const secret of secrets) if (typeof secret === 'string') credentials.add(secret);
    },
    send(given, context) {
      const request = withContext(given, context);
      // Tracing (docs/architecture.md#tracing-channels) costs one property read per channel while nobody listens.
      const tracing = httpTracing();
      if (!tracing) return sendRedacted(request, undefined);
      // The request id is fixed now, so the trace names the id every attempt sends.
      const traced: HttpRequest = { ...request, requestId: request.requestId ?? crypto.randomUUID() };
      const describe = () => describeCall(options.provider, baseUrl, traced);
      // A call the provider client already traces: its attempts are counted on that trace.
      const above = callTraceOf(given);
      if (above || !tracing.call)
        return sendRedacted(traced, { fields: above ?? httpTraceFields(describe()), call: above });
      return traceCall(describe, traced, (call) =>
        sendRedacted(traced, { fields: call ?? httpTraceFields(describe()), call }),
      );
    },
  };

  async function sendRedacted(request: HttpRequest, tracing: AttemptTracing | undefined): Promise<HttpReply> {
    try {
      return await sendCall(request, tracing);
    } catch (error) {
      // Whatever stops a call (its own network error, a login's error) leaves without a credential in it,
      // before any trace of it ends.
      throw redactError(error, credentials.values());
    }
  }

  /** One logical call with its settings (docs/architecture.md#createpay): the request's, else the client's. */
  function sendCall(request: HttpRequest, tracing: AttemptTracing | undefined): Promise<HttpReply> {
    assertCallSettings(request);
    const url = buildUrl(baseUrl, request.path, request.query);
    const timeout = request.timeoutMs ?? timeoutMs;
    return new UpstreamCall(parts, request, url, timeout, request.retry ?? retries, tracing).run();
  }
}

/** The request, with the operation context's signal and settings (docs/architecture.md#operation-context). */
function withContext(request: HttpRequest, context: CallOptions | undefined): HttpRequest {
  // Most operations set none of the three: the request is then sent as it is, not copied.
  if (!context || (!context.signal && context.timeoutMs === undefined && context.retry === undefined))
    return request;
  const { signal, timeoutMs, retry } = request;
  return {
    ...request,
    signal: signal ?? context.signal,
    timeoutMs: timeoutMs ?? context.timeoutMs,
    retry: retry ?? context.retry,
  };
}
