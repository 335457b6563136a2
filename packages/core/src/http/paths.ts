/** What a call is sent as: its URL, its headers and its body. */
import { rememberPathTemplate } from '../diagnostics/url-template.js';
import { ValidationError } from '../errors.js';
import type { HttpRequest } from './types.js';

/**
 * Builds a path from a template, encoding every interpolated value as one path segment. A value that would not be
 * one segment of its own — empty, `.` or `..`, which URL resolution collapses — is a `ValidationError` before any
 * I/O (docs/architecture.md#http-client).
 */
export function path(strings: TemplateStringsArray, ...segments: (string | number)[]): string {
  const issues = segments.flatMap((segment, index) => {
    const text = String(segment);
    const message =
      text.trim() === ''
        ? 'must not be empty'
        : text === '.' || text === '..'
          ? `must not be "${text}" (it would change the URL)`
          : undefined;
    return message ? [{ path: `path segment ${index + 1}`, message }] : [];
  });
  if (issues.length > 0) throw new ValidationError(issues);
  const built = strings.reduce(
    (built, part, index) =>
      built + part + (index < segments.length ? encodeURIComponent(String(segments[index])) : ''),
    '',
  );
  // Traces name the route, not the payment: the template (values as `{id}`) is kept while someone listens.
  rememberPathTemplate(strings, built);
  return built;
}

/** The full URL of a call: base URL, path, and the defined query values. */
export function buildUrl(baseUrl: string, requestPath: string, query: HttpRequest['query']): string {
  const url = new URL(baseUrl + requestPath);
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined) url.searchParams.set(name, String(value));
  }
  return url.toString();
}

/** The headers and body of a call: its own headers, `accept`, the request id, and JSON or form-encoded data. */
export function wireRequest(
  request: HttpRequest,
  requestIdHeader: string | undefined,
  requestId: string,
): { headers: Record<string, string>; body: string | undefined } {
  const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
  if (requestIdHeader) headers[requestIdHeader] = requestId;
  let body: string | undefined;
  if (request.json !== undefined) {
    body = JSON.stringify(request.json);
    headers['content-type'] = 'application/json';
  } else if (request.form) {
    body = new URLSearchParams(request.form).toString();
    headers['content-type'] = 'application/x-www-form-urlencoded';
  }
  return { headers, body };
}

/** The headers of one attempt: the call's, with its Authorization value (whatever case the call's own used). */
export function withAuthorization(
  headers: Record<string, string>,
  authorization: string | undefined,
): Record<string, string> {
  if (authorization === undefined) return headers;
  const sent: Record<string, string> = {};
  for (const name of Object.keys(headers)) {
    if (name.toLowerCase() !== 'authorization') sent[name] = headers[name]!;
  }
  sent.authorization = authorization;
  return sent;
}
