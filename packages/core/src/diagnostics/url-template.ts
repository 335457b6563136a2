/**
 * URL templates for traces (docs/architecture.md#tracing-channels): a call's path with its ids replaced by `{id}`,
 * so one route never splits into a span name per payment. `path` reports the templates it fills here.
 */
import { payChannels } from './channels.js';

/** The placeholder that replaces every interpolated segment. */
export const ID_PLACEHOLDER = '{id}';

/** Built path → template. Bounded: a process builds many paths, but from a handful of templates. */
const TEMPLATES = new Map<string, string>();
const TEMPLATES_KEPT = 1024;

/** Called by `path` with its template parts and the path it built; kept only while someone subscribes. */
export function rememberPathTemplate(strings: readonly string[], built: string): void {
  if (strings.length < 2) return;
  const channels = payChannels();
  if (!channels || !(channels.call.hasSubscribers || channels.attempt.hasSubscribers)) return;
  if (TEMPLATES.size >= TEMPLATES_KEPT) TEMPLATES.clear();
  TEMPLATES.set(built, strings.join(ID_PLACEHOLDER));
}

/** The template of a request path, without its query: the one `path` remembered, else ids guessed as `{id}`. */
export function urlTemplateOf(requestPath: string): string {
  const withoutQuery = requestPath.split('?', 1)[0] ?? '';
  const known = TEMPLATES.get(withoutQuery);
  if (known !== undefined) return known;
  return withoutQuery
    .split('/')
    .map((segment) => (looksLikeId(segment) ? ID_PLACEHOLDER : segment))
    .join('/');
}

/** A segment that is a value rather than a route name: a path an adapter built without `path`. */
function looksLikeId(segment: string): boolean {
  if (segment === '' || /^v\d+(?:\.\d+)*$/i.test(segment)) return false;
  if (/^\d+$/.test(segment)) return true;
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(segment)) return true;
  // Percent-encoded text or a long token mixing letters and digits is a value, not a route name.
  if (segment.includes('%')) return true;
  return segment.length >= 8 && /\d/.test(segment) && /[A-Za-z]/.test(segment);
}
