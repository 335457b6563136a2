/**
 * The full URL a webhook was posted to, rebuilt from a Node request (docs/architecture.md#webhook-bridges) when no
 * `publicOrigin` is configured: the origin a valid Host header names, and the path and query of the request target.
 */
import type { NodeRequestLike } from './bridges.js';

/**
 * A hostname (letters, digits, hyphens, dots), an IPv4 address or a bracketed IPv6 address, then an optional
 * port: what RFC 9110 §7.2 allows in Host. Anything else (spaces, `@`, a second colon) is refused.
 */
const HOST_HEADER = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)(?::(\d{1,5}))?$/;

/** The origin a request's Host header names, when it is a valid `host[:port]`; `undefined` otherwise. */
export function originFromHost(req: NodeRequestLike): string | undefined {
  const host = req.headers.host;
  if (typeof host !== 'string') return undefined;
  const match = HOST_HEADER.exec(host);
  if (match === null) return undefined;
  if (match[1] !== undefined && Number(match[1]) > 65535) return undefined;
  const encrypted = (req.socket as { encrypted?: boolean } | null | undefined)?.encrypted === true;
  return urlOf(`${encrypted ? 'https' : 'http'}://${host}`)?.origin;
}

/**
 * The path and query of a request target (RFC 9112 §3.2): origin-form as it is, absolute-form reduced to its path
 * and query (its scheme and authority are the client's word, never trusted, never parsed). Asterisk- and
 * authority-form, or anything else, is `undefined`.
 */
export function targetPathAndQuery(target: string | undefined): string | undefined {
  if (target === undefined || target === '') return '/';
  if (target.startsWith('/')) return target;
  const absolute = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/.exec(target);
  if (absolute === null) return undefined;
  const rest = target.slice(absolute[0].length);
  if (rest === '') return '/';
  return rest.startsWith('/') ? rest : rest.startsWith('?') ? `/${rest}` : undefined;
}

/**
 * `origin` followed by `pathAndQuery`, parsed as one absolute URL, never resolved relative to the origin (a
 * target `//other.example/x` stays a path on our origin instead of naming another host).
 */
export function joinUrl(origin: string, pathAndQuery: string): string | undefined {
  const url = urlOf(`${origin}${pathAndQuery}`);
  return url?.origin === origin ? url.toString() : undefined;
}

/** `text` parsed as an absolute URL; `undefined` when it is not one. */
export function urlOf(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}
