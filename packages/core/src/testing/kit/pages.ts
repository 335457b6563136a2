/**
 * Hosted-page helpers: the page a payer sees at a simulator's checkout, redirect or receipt URL, with Pay, Fail
 * and Cancel forms. The form's POST applies the payer action through the simulator's callback (which changes the
 * books and queues the signed webhook), waits briefly for the webhook to be delivered, then answers 303 to the
 * merchant's success or cancel URL, as a provider's hosted page sends the payer back. Every value on the page is
 * HTML-escaped: merchant text (descriptions, names, URLs) comes from the API call.
 *
 * Under `pay dev` the page is on this machine while the developer browses the web, and its POST makes the
 * simulator send a signed webhook the app trusts (docs/architecture.md#pay-dev). So the POST is taken only from
 * the page itself: a browser's cross-site or cross-origin form POST (another site, another loopback port, a
 * sandboxed frame's `null` origin) and a POST addressed to a host that is not this machine (DNS rebinding) are
 * refused 403 before the books move. Clients that send neither `Origin` nor `Sec-Fetch-Site` (tests, curl) are
 * no browser page and are served. Every HTML reply forbids framing (`htmlReply`), so the page cannot be
 * overlaid to trick a click.
 */
import type { SimulatorReply } from './faults.js';
import { formBody } from './requests.js';
import { htmlReply, type RouteRequest, type Routes, redirectReply } from './routes.js';
import { isLoopbackHost } from './server.js';
import type { WebhookForwarder } from './webhooks.js';

/** What a person can do on a hosted page. */
export type PayerAction = 'pay' | 'fail' | 'cancel';

const ACTION_LABELS: ReadonlyMap<PayerAction, string> = new Map([
  ['pay', 'Pay'],
  ['fail', 'Fail'],
  ['cancel', 'Cancel'],
]);

/** What a hosted page shows about one payment, and where the payer goes afterwards. */
export interface HostedPageView {
  /** The provider's name, shown as the page's brand (e.g. `Provider N`). */
  provider: string;
  /** The page heading, e.g. `Pay NGN 250.50`. */
  heading: string;
  /** Label/value lines (merchant, description, reference, status). */
  details: readonly (readonly [label: string, value: string])[];
  /** The actions offered now (none once the payment is final). */
  actions: readonly PayerAction[];
  /** Where the browser goes after Pay (and after Fail when there is no `failUrl`). */
  successUrl?: string | undefined;
  /** Where the browser goes after Cancel (and after Fail when there is no `failUrl` nor `successUrl`). */
  cancelUrl?: string | undefined;
  /** Where the browser goes after Fail, when the provider has a separate one. */
  failUrl?: string | undefined;
}

/** Escapes `&`, `<`, `>`, `"` and `'` so a value can go into HTML text or a quoted attribute. */
export function escapeHtml(value: string): string {
  return value
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

const STYLE =
  'body{font-family:system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1d2330}' +
  'main{max-width:28rem;margin:3rem auto;background:#fff;padding:2rem;border-radius:8px;box-shadow:0 1px 4px #0002}' +
  'dl{display:grid;grid-template-columns:auto 1fr;gap:.4rem 1rem}dt{color:#5b6478}dd{margin:0}' +
  '.actions{display:flex;gap:.5rem;margin-top:1.5rem}button{font-size:1rem;padding:.6rem 1.2rem;border-radius:6px;border:1px solid #8892a6;background:#fff}' +
  'button.pay{background:#1f6feb;color:#fff;border-color:#1f6feb}.note{font-size:.85rem;color:#5b6478}';

/** The HTML of a hosted page whose forms POST to `actionPath`. */
export function renderHostedPage(view: HostedPageView, actionPath: string): string {
  const details = view.details
    .map(([label, value]) => `<dt>${escapeHtml(label)}</dt><dd>${escapeHtml(value)}</dd>`)
    .join('');
  const forms = view.actions
    .map(
      (action) =>
        `<form method="post" action="${escapeHtml(actionPath)}"><input type="hidden" name="action" value="${action}">` +
        `<button type="submit" class="${action}">${ACTION_LABELS.get(action)}</button></form>`,
    )
    .join('');
  const title = `${escapeHtml(view.provider)} (simulator)`;
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
    `<title>${title}: ${escapeHtml(view.heading)}</title><style>${STYLE}</style></head><body><main>` +
    `<p class="note">${title}. No real money moves.</p><h1>${escapeHtml(view.heading)}</h1><dl>${details}</dl>` +
    `${forms ? `<div class="actions">${forms}</div>` : '<p>Nothing left to do on this page.</p>'}</main></body></html>`
  );
}

/** A small page for an answer that is not a redirect (unknown payment, refused action, no return URL). */
export function renderNotice(provider: string, heading: string, text: string): string {
  const title = `${escapeHtml(provider)} (simulator)`;
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}: ${escapeHtml(heading)}</title>` +
    `<style>${STYLE}</style></head><body><main><p class="note">${title}</p><h1>${escapeHtml(heading)}</h1>` +
    `<p>${escapeHtml(text)}</p></main></body></html>`
  );
}

/** Options of {@link addHostedPages}. */
export interface HostedPagesOptions {
  /** The provider's name on the pages (e.g. `Provider N`). */
  provider: string;
  /** The page route, e.g. `/checkout/:id`; GET shows the page, POST takes the action. */
  path: string;
  /**
   * The payment id of a request to the page; default: the path's `:id` param. A page that keeps the id in the
   * query string passes `(request) => request.query.id`.
   */
  idOf?(request: RouteRequest): string | undefined;
  /** The view of payment `id`, `undefined` when the simulator has no such payment. */
  find(id: string): HostedPageView | undefined;
  /** Applies the payer action (changes the books and queues the webhook). A thrown Error is shown as a 409. */
  act(id: string, action: PayerAction): void | Promise<void>;
  /** Waited for (at most `webhookWaitMs`) before the redirect, so the app has its webhook when the payer lands. */
  forwarder?: WebhookForwarder;
  /** Default 5000. */
  webhookWaitMs?: number;
}

/** Adds the GET page and the POST action of a provider's hosted page to `routes`. */
export function addHostedPages(routes: Routes, options: HostedPagesOptions): void {
  const unknown = () => htmlReply(404, renderNotice(options.provider, 'Unknown payment', 'No such payment.'));
  const idOf = options.idOf ?? ((request: RouteRequest) => request.params.id);
  routes.get(options.path, (request) => {
    const view = options.find(idOf(request) ?? '');
    // The form posts back to the same URL, query included: a page keeping the id there must not lose it.
    return view ? htmlReply(200, renderHostedPage(view, actionOf(request))) : unknown();
  });
  routes.post(options.path, async (request): Promise<SimulatorReply> => {
    const id = idOf(request) ?? '';
    const foreign = foreignSender(request);
    if (foreign !== undefined) {
      const text = `This page takes only its own Pay, Fail and Cancel buttons; this request ${foreign}. Nothing changed.`;
      return htmlReply(403, renderNotice(options.provider, 'Action refused', text));
    }
    const view = options.find(id);
    if (!view) return unknown();
    const action = formBody(request).action as PayerAction;
    if (!view.actions.includes(action)) {
      const text = `"${action}" is not possible now (offered: ${view.actions.join(', ') || 'nothing'}).`;
      return htmlReply(409, renderNotice(options.provider, 'Action not available', text));
    }
    try {
      await options.act(id, action);
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      return htmlReply(409, renderNotice(options.provider, 'Action refused', text));
    }
    if (options.forwarder) await settle(options.forwarder.idle(), options.webhookWaitMs ?? 5_000);
    const target = returnUrl(view, action);
    if (target) return redirectReply(target);
    const done = action === 'pay' ? 'Paid' : action === 'fail' ? 'Payment failed' : 'Payment cancelled';
    return htmlReply(200, renderNotice(options.provider, done, 'The merchant gave no return URL.'));
  });
}

/**
 * How a POST to a hosted page shows it was not sent by the page itself (a phrase for the refusal), or
 * `undefined` when it was, or came from a client that is not a browser page (neither header sent).
 */
export function foreignSender(request: RouteRequest): string | undefined {
  const { host, origin } = request.headers;
  const site = request.headers['sec-fetch-site'];
  if (!isLoopbackHost(host)) return `was addressed to ${host ?? 'no host'}, not to this machine`;
  // `same-site` is refused too: every loopback port is one site, and another port is another app.
  if (site !== undefined && site !== 'same-origin') return `came from another page (Sec-Fetch-Site: ${site})`;
  if (origin !== undefined && origin !== `http://${host}`) return `came from ${origin}`;
  return undefined;
}

/** The URL a page's forms post to: the request's path with its query string. */
function actionOf(request: RouteRequest): string {
  const query = new URLSearchParams(request.query).toString();
  return query ? `${request.path}?${query}` : request.path;
}

/** The merchant URL the payer returns to after `action`, when it is a usable http(s) URL. */
function returnUrl(view: HostedPageView, action: PayerAction): string | undefined {
  const candidates =
    action === 'pay'
      ? [view.successUrl]
      : action === 'cancel'
        ? [view.cancelUrl, view.successUrl]
        : [view.failUrl, view.cancelUrl, view.successUrl];
  for (const candidate of candidates) {
    if (candidate === undefined) continue;
    try {
      const url = new URL(candidate);
      if (url.protocol === 'http:' || url.protocol === 'https:') return url.href;
    } catch {
      // Not a URL: try the next one; a provider would have refused it when the payment was created.
    }
  }
  return undefined;
}

/** Waits for `work` or `ms`, whichever is first. */
export async function settle(work: Promise<void>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([work, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
