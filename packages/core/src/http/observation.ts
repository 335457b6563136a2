/** What observation hooks see, redacted; they cannot change a call (docs/architecture.md#http-client). */
import type { PayLogger } from '../diagnostics/logger.js';
import type { ProviderName } from '../records.js';
import { type CredentialSet, redact } from '../redaction.js';
import { parseJson } from './replies.js';
import type { HttpHooks, HttpReply, HttpRequest, HttpRequestInfo } from './types.js';

/** Header names whose values are credentials: they are remembered and redacted everywhere. */
export const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization']);

/** Header values with every credential redacted; Authorization-like headers entirely. */
export function redactHeaders(
  headers: Iterable<[string, string]>,
  secrets: readonly string[],
): Record<string, string> {
  return Object.fromEntries(
    [...headers].map(([name, value]) => [
      name,
      CREDENTIAL_HEADERS.has(name.toLowerCase()) ? '[REDACTED]' : redact(value, secrets),
    ]),
  );
}

/** Where hooks are run and their failures reported: the client's hooks, credentials and logger. */
export interface Observed {
  provider: ProviderName;
  hooks?: HttpHooks | undefined;
  /** Configured secrets plus every credential the client sends or receives (docs/architecture.md#redaction). */
  credentials: CredentialSet;
  logger: () => PayLogger;
}

/** Runs the `onRequest` hook of one attempt, with the URL, headers and body it is sent with, redacted. */
export async function notifyRequest(
  where: Observed,
  call: { url: string; request: HttpRequest; requestId: string; body: string | undefined },
  headers: Record<string, string>,
  attempt: number,
): Promise<HttpRequestInfo> {
  const secrets = where.credentials.values();
  const info: HttpRequestInfo = {
    provider: where.provider,
    method: call.request.method,
    url: redact(call.url, secrets),
    headers: redactHeaders(Object.entries(headers), secrets),
    body: call.body === undefined ? undefined : redact(call.body, secrets),
    requestId: call.requestId,
    attempt,
  };
  await observe(where, 'onRequest', { ...info, headers: { ...info.headers } }, info);
  return info;
}

/** Runs the `onResponse` hook of an answered attempt: its request, and the reply redacted (a login's entirely). */
export async function notifyResponse(
  where: Observed,
  request: HttpRequest,
  info: HttpRequestInfo,
  reply: Pick<HttpReply, 'status' | 'headers' | 'text'>,
  started: number,
): Promise<void> {
  const secrets = where.credentials.values();
  const payload = {
    ...info,
    headers: { ...info.headers },
    status: reply.status,
    responseHeaders: redactHeaders(reply.headers, secrets),
    responseBody: request.credentialsInReply ? '[REDACTED]' : redact(reply.text, secrets),
    durationMs: Date.now() - started,
  };
  await observe(where, 'onResponse', payload, info);
}

/** Remembers the access tokens a login reply carries, so they are redacted before they are ever sent. */
export function rememberIssuedTokens(text: string, credentials: CredentialSet): void {
  const visit = (value: unknown, key: string, depth: number): void => {
    if (typeof value === 'string') {
      // Token fields only: a `token_type` of "Bearer" is no credential and must not blank every message.
      if (/(?:access|refresh|id)_?token$/i.test(key)) credentials.add(value);
      return;
    }
    if (value === null || typeof value !== 'object' || depth > 4) return;
    for (const [name, item] of Object.entries(value)) visit(item, name, depth + 1);
  };
  visit(parseJson(text), '', 0);
}

/**
 * Runs an observation hook so that nothing it does can change the call: what it throws is reported to the logger
 * (`warn`) and to `onHookError`; with neither, to one `console.warn` line.
 */
async function observe<P extends HttpRequestInfo>(
  where: Observed,
  hook: 'onRequest' | 'onResponse',
  payload: P,
  request: HttpRequestInfo,
): Promise<void> {
  const run = where.hooks?.[hook] as ((payload: P) => void | Promise<void>) | undefined;
  if (!run) return;
  try {
    await run(payload);
  } catch (error) {
    try {
      const logger = where.logger();
      const message = String((error as Error | undefined)?.message ?? error);
      if (logger.enabled('warn'))
        logger.warn(
          `the ${hook} hook threw (${message}); the ${where.provider} ${request.method} call went on unaffected.`,
          () => ({ provider: where.provider, hook, requestId: request.requestId, attempt: request.attempt }),
        );
      if (where.hooks?.onHookError) where.hooks.onHookError(error, { hook, request });
      else if (!logger.enabled('warn'))
        console.warn(
          `@pay/core: the ${hook} hook threw (${redact(message, where.credentials.values())}); the ${where.provider} call went on unaffected. Pass hooks.onHookError to handle hook failures.`,
        );
    } catch {
      // A failing error reporter must not change the call either.
    }
  }
}
