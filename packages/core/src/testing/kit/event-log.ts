/**
 * `pay dev`'s event log (docs/architecture.md#pay-dev): a page of the running simulator, like a provider
 * dashboard's, at `GET /_simulator/events`. It lists each object in the simulator's books with its provider status
 * and every read the app made of it (so a developer sees the app, or its reconciler, poll), and every webhook
 * delivery with its state, each attempt's time and the app's answer, and a "Send again" button.
 *
 * The button makes the simulator send a signed webhook the app trusts, and the page shows webhook bodies, so it
 * is guarded as the hosted pages are and more: it sits under the control prefix (this machine's peers only, no
 * fault applies), answers only a loopback `Host` (DNS rebinding), takes a POST only from itself (`Origin`,
 * `Sec-Fetch-Site`) and only with the random token of the page it was served (a page elsewhere cannot read it),
 * and cannot be framed. Every value on it is HTML-escaped: ids, events and bodies come from the app's calls.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { SimulatedObject, SimulatorDescriptor } from './descriptor.js';
import { escapeHtml, foreignSender, renderNotice, settle } from './pages.js';
import { formBody, type RecordedRequest } from './requests.js';
import { htmlReply, type Routes, redirectReply } from './routes.js';
import { isLoopbackHost, SIMULATOR_CONTROL_PREFIX } from './server.js';
import type { WebhookAttempt, WebhookDelivery, WebhookForwarder } from './webhooks.js';

/** Path of the event-log page (GET shows it, POST sends a delivery again). */
export const EVENT_LOG_PATH = `${SIMULATOR_CONTROL_PREFIX}events`;

/** Options of {@link addEventLogPage}. */
export interface EventLogOptions<Books = unknown> {
  /** The provider's name on the page (`Provider N`). */
  provider: string;
  /** The simulator's forwarder: its delivery log, and what "Send again" goes through. */
  forwarder: WebhookForwarder;
  /** The requests the simulator received so far (`PaymentSimulator.requests`); read at each page view. */
  requests(): readonly RecordedRequest[];
  /** The simulator's books now (`PaymentSimulator.books()`), `undefined` while it is starting. */
  books(): Books | undefined;
  /** How the adapter's descriptor lists the objects in the books and tells which request reads which. */
  descriptor: Pick<SimulatorDescriptor<never, Books>, 'objects' | 'readOf'>;
  /** How long a "Send again" waits for the app's answer before showing the page (default 5000 ms). */
  resendWaitMs?: number;
  /**
   * How many objects the page lists, the last in the books (default all): with the forwarder's and the request
   * log's `forgetOldest`, `pay dev --keep` (docs/architecture.md#pay-dev). The page says how many it leaves out.
   */
  keep?: number;
}

/** One object with the reads the app made of it. */
interface ObjectRow extends SimulatedObject {
  reads: RecordedRequest[];
}

/** Adds the event-log page (GET) and its "Send again" action (POST) to a simulator's routes. */
export function addEventLogPage<Books>(routes: Routes, options: EventLogOptions<Books>): void {
  // One token per running simulator: the page carries it in its forms, and only a reader of the page has it.
  const token = randomBytes(16).toString('hex');
  const refused = (text: string) => htmlReply(403, renderNotice(options.provider, 'Refused', text));
  routes.get(EVENT_LOG_PATH, (request) => {
    if (!isLoopbackHost(request.headers.host))
      return refused('The event log answers only requests addressed to this machine.');
    const refresh = request.query.refresh === undefined ? undefined : Number(request.query.refresh);
    const seconds = refresh !== undefined && Number.isInteger(refresh) && refresh > 0 ? refresh : undefined;
    return htmlReply(200, renderEventLog(options, token, seconds));
  });
  routes.post(EVENT_LOG_PATH, async (request) => {
    const foreign = foreignSender(request);
    if (foreign !== undefined)
      return refused(`The event log takes only its own buttons; this request ${foreign}.`);
    const form = formBody(request);
    if (!sameToken(form.token, token))
      return refused(
        'The form carries no token of this page: reload the event log and press the button again.',
      );
    const id = form.delivery ?? '';
    try {
      options.forwarder.redeliver(id);
    } catch (error) {
      const status = error instanceof RangeError ? 404 : 409;
      const text = error instanceof Error ? error.message : String(error);
      return htmlReply(status, renderNotice(options.provider, 'Not sent again', text));
    }
    // The page the browser comes back to shows the app's answer to this attempt, when it came in time.
    await settle(options.forwarder.idle(), options.resendWaitMs ?? 5_000);
    return redirectReply(`${EVENT_LOG_PATH}#${encodeURIComponent(id)}`);
  });
}

/** Whether the form's token is the page's, compared in constant time. */
function sameToken(given: string | undefined, token: string): boolean {
  const expected = Buffer.from(token);
  const actual = Buffer.from(given ?? '');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** The objects in the books, each with the reads of it, in the order the descriptor lists them. */
function objectRows<Books>(options: EventLogOptions<Books>): ObjectRow[] | undefined {
  const { objects, readOf } = options.descriptor;
  const books = options.books();
  if (objects === undefined || books === undefined) return undefined;
  const rows = objects(books).map((object) => ({ ...object, reads: [] as RecordedRequest[] }));
  const byId = new Map(rows.map((row) => [row.id, row]));
  if (readOf !== undefined) {
    for (const request of options.requests()) {
      if (request.path.startsWith(SIMULATOR_CONTROL_PREFIX)) continue;
      const id = readOf(request, books);
      if (id !== undefined) byId.get(id)?.reads.push(request);
    }
  }
  return rows;
}

const STYLE =
  'body{font-family:system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1d2330}' +
  'main{max-width:72rem;margin:2rem auto;background:#fff;padding:2rem;border-radius:8px;box-shadow:0 1px 4px #0002}' +
  'table{border-collapse:collapse;width:100%;margin-bottom:2rem}th,td{text-align:left;vertical-align:top;padding:.4rem .6rem;border-bottom:1px solid #dde1e8}' +
  'ul{margin:0;padding-left:1rem}pre{white-space:pre-wrap;word-break:break-all;max-width:28rem;margin:0}' +
  '.note{font-size:.85rem;color:#5b6478}.dropped,.failed{color:#b42318}.delivered{color:#067647}code{font-size:.9em}';

/** The HTML of the event log; `refreshSeconds` adds a meta refresh. */
function renderEventLog<Books>(
  options: EventLogOptions<Books>,
  token: string,
  refreshSeconds?: number,
): string {
  const { forwarder } = options;
  const allObjects = objectRows(options);
  const objects =
    allObjects && options.keep !== undefined
      ? allObjects.slice(Math.max(0, allObjects.length - options.keep))
      : allObjects;
  const deliveries = [...forwarder.deliveries].reverse();
  const refresh =
    refreshSeconds === undefined ? '' : `<meta http-equiv="refresh" content="${refreshSeconds}">`;
  const title = `${escapeHtml(options.provider)} (simulator)`;
  const forwarding = forwarder.url
    ? `Webhooks go to <code>${escapeHtml(forwarder.url)}</code>.`
    : 'Webhooks are not forwarded (no --forward).';
  const dropping =
    forwarder.dropShare >= 1
      ? ' Every webhook is dropped (--drop-webhooks all).'
      : forwarder.dropShare > 0
        ? ` About ${Math.round(forwarder.dropShare * 100)}% of webhooks are dropped (--drop-webhooks ${forwarder.dropShare}).`
        : '';
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8">${refresh}<title>${title}: event log</title>` +
    `<style>${STYLE}</style></head><body><main><p class="note">${title}</p><h1>Event log</h1>` +
    `<p>${forwarding}${escapeHtml(dropping)}</p>` +
    `<p><a href="${EVENT_LOG_PATH}">Refresh</a> · <a href="${EVENT_LOG_PATH}?refresh=5">Refresh every 5 s</a></p>` +
    `<h2>Objects</h2>${renderObjects(objects)}${leftOut((allObjects?.length ?? 0) - (objects?.length ?? 0), 'older object(s) not listed')}` +
    `<h2>Webhook deliveries</h2>${renderDeliveries(deliveries, objects ?? [], token)}${leftOut(forwarder.forgotten, 'older deliveries forgotten')}` +
    '</main></body></html>'
  );
}

/** A note that `count` rows were left out (nothing when none was). */
function leftOut(count: number, what: string): string {
  return count > 0 ? `<p class="note">${count} ${what} (pay dev --keep).</p>` : '';
}

function renderObjects(objects: readonly ObjectRow[] | undefined): string {
  if (objects === undefined)
    return "<p>This adapter's simulator descriptor lists no objects (no <code>objects</code>).</p>";
  if (objects.length === 0) return '<p>No payment, checkout, refund or transfer yet.</p>';
  const rows = objects.map((object) => {
    const reads =
      object.reads.length === 0
        ? 'none'
        : `<ul>${object.reads.map((read) => `<li>${time(read.at)} ${escapeHtml(`${read.method} ${read.path}`)}: ${read.status === undefined ? 'no answer' : `HTTP ${read.status}`}</li>`).join('')}</ul>`;
    return (
      `<tr><td>${escapeHtml(object.kind)}</td><td><code>${escapeHtml(object.id)}</code></td>` +
      `<td>${escapeHtml(object.status)}</td><td>${reads}</td></tr>`
    );
  });
  return (
    '<table><thead><tr><th>Kind</th><th>Id</th><th>Provider status</th><th>Reads by the app</th></tr></thead>' +
    `<tbody>${rows.join('')}</tbody></table>`
  );
}

function renderDeliveries(
  deliveries: readonly WebhookDelivery[],
  objects: readonly SimulatedObject[],
  token: string,
): string {
  if (deliveries.length === 0) return '<p>No webhook yet.</p>';
  const rows = deliveries.map((delivery) => {
    // The objects a webhook is about: those whose id its body carries (a refund's carries its payment's too).
    const about = objects.filter((object) => delivery.body.includes(object.id));
    const attempts =
      delivery.attempts.length === 0
        ? 'not sent'
        : `<ul>${delivery.attempts.map((attempt) => `<li>${time(attempt.at)} ${escapeHtml(answerOf(attempt))}</li>`).join('')}</ul>`;
    const button =
      delivery.state === 'pending'
        ? ''
        : `<form method="post" action="${EVENT_LOG_PATH}"><input type="hidden" name="token" value="${token}">` +
          `<input type="hidden" name="delivery" value="${escapeHtml(delivery.id)}"><button type="submit">Send again</button></form>`;
    return (
      `<tr id="${escapeHtml(delivery.id)}"><td><code>${escapeHtml(delivery.id)}</code></td><td>${escapeHtml(delivery.event)}</td>` +
      `<td>${about.map((object) => `<code>${escapeHtml(object.id)}</code>`).join(' ') || '—'}</td>` +
      `<td class="${delivery.state}">${STATE_LABELS[delivery.state]}</td><td>${attempts}</td>` +
      `<td><details><summary>body</summary><pre>${escapeHtml(delivery.body)}</pre></details></td><td>${button}</td></tr>`
    );
  });
  return (
    "<table><thead><tr><th>Delivery</th><th>Event</th><th>Object</th><th>State</th><th>Attempts (the app's answer)</th><th>Body</th><th></th></tr></thead>" +
    `<tbody>${rows.join('')}</tbody></table>`
  );
}

/** How each delivery state reads on the page. */
const STATE_LABELS: Readonly<Record<WebhookDelivery['state'], string>> = {
  pending: 'sending',
  delivered: 'delivered',
  failed: 'failed',
  dropped: 'dropped',
};

/** The app's answer to one attempt: `HTTP 200`, `HTTP 400 <start of its body>`, or why none came. */
function answerOf(attempt: WebhookAttempt): string {
  if (attempt.status === undefined) return `no answer (${attempt.error ?? 'unknown'})`;
  return attempt.answer ? `HTTP ${attempt.status} ${attempt.answer}` : `HTTP ${attempt.status}`;
}

/** An ISO time as `<time>` showing the time of day (UTC). */
function time(at: string): string {
  return `<time datetime="${escapeHtml(at)}">${escapeHtml(at.slice(11, 19))}</time>`;
}
