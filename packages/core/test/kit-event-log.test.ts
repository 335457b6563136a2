/**
 * `pay dev`'s event log (docs/architecture.md#pay-dev) on a small kit simulator: the objects in its books with
 * their status and the app's reads, every webhook delivery with its answers, "Send again" through the forwarder,
 * the guards of a page that makes the simulator send a webhook the app trusts, and escaped output.
 */
import { rowText as rowWith } from '@pay/tooling/testing/html';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  addEventLogPage,
  EVENT_LOG_PATH,
  jsonReply,
  type LoopbackServer,
  RequestLog,
  Routes,
  readRequestBody,
  type SimulatedObject,
  simulatorListener,
  startLoopbackServer,
  WebhookForwarder,
} from '../src/testing/index.js';
import { rawFormPost, rawRequest } from './raw-request.js';

const servers: LoopbackServer[] = [];
const forwarders: WebhookForwarder[] = [];
afterEach(async () => {
  await Promise.all(forwarders.splice(0).map((forwarder) => forwarder.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

interface Received {
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/** The app's webhook endpoint: answers each status in turn (then 200) with a short body. */
async function app(statuses: number[] = []) {
  const received: Received[] = [];
  const server = await startLoopbackServer(async (req, res) => {
    received.push({ body: await readRequestBody(req), headers: req.headers });
    res.statusCode = statuses.shift() ?? 200;
    res.end(res.statusCode === 200 ? '{"received":true}' : 'signature mismatch');
  });
  servers.push(server);
  return { url: `${server.url}/webhooks`, received };
}

/**
 * A kit simulator whose books are `objects` (the status read is `GET /status/:id`), its webhooks signed
 * `x-signature: sig(<length>)`, with the event log attached as `pay dev` attaches it.
 */
async function simulator(objects: SimulatedObject[]) {
  const requests = new RequestLog();
  const forwarder = new WebhookForwarder({ sign: (body) => ({ 'x-signature': `sig(${body.length})` }) });
  forwarders.push(forwarder);
  const routes = new Routes().get('/status/:id', (request) => {
    const object = objects.find((candidate) => candidate.id === request.params.id);
    return object ? jsonReply(200, object) : jsonReply(404, { error: 'unknown' });
  });
  addEventLogPage(routes, {
    provider: 'Provider Z',
    forwarder,
    requests: () => requests.entries,
    books: () => ({ objects }),
    descriptor: {
      objects: (books) => books.objects,
      readOf: (request) => /^\/status\/([^/]+)$/.exec(request.path)?.[1],
    },
    resendWaitMs: 5_000,
  });
  const server = await startLoopbackServer(simulatorListener({ routes, requests }));
  servers.push(server);
  return { url: server.url, port: server.port, page: `${server.url}${EVENT_LOG_PATH}`, forwarder, requests };
}

/** The page's HTML. */
async function page(url: string) {
  const response = await fetch(url);
  return { status: response.status, html: await response.text(), headers: response.headers };
}

/** The form token on the page. */
function tokenOf(html: string): string {
  return /name="token" value="([0-9a-f]+)"/.exec(html)?.[1] ?? '';
}

/** A form POST to the page (a browser's own, unless `headers` say otherwise). */
function post(url: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

describe('the event log page', () => {
  it('lists each object with its provider status and every read the app made of it, with the time and the status answered', async () => {
    const sim = await simulator([
      { kind: 'payment', id: 'PAY-1', status: 'PAID' },
      { kind: 'refund', id: 'RF-1', status: 'IN_PROGRESS' },
    ]);
    expect((await fetch(`${sim.url}/status/PAY-1`)).status).toBe(200);
    expect((await fetch(`${sim.url}/status/PAY-1`)).status).toBe(200);
    expect((await fetch(`${sim.url}/status/NOPE`)).status).toBe(404);
    // The request log now keeps when each request came and what the simulator answered.
    expect(sim.requests.entries.map((request) => [request.path, request.status])).toEqual([
      ['/status/PAY-1', 200],
      ['/status/PAY-1', 200],
      ['/status/NOPE', 404],
    ]);
    expect(sim.requests.entries[0]?.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const { status, html, headers } = await page(sim.page);
    expect(status).toBe(200);
    expect(headers.get('x-frame-options')).toBe('DENY');
    expect(html).toContain('<h1>Event log</h1>');
    const hhmmss = /\d\d:\d\d:\d\d/.source;
    expect(rowWith(html, 'PAY-1')).toMatch(
      new RegExp(
        `^payment PAY-1 PAID ${hhmmss} GET /status/PAY-1: HTTP 200 ${hhmmss} GET /status/PAY-1: HTTP 200$`,
      ),
    );
    expect(rowWith(html, 'RF-1')).toBe('refund RF-1 IN_PROGRESS none');
    expect(html).toContain('No webhook yet.');
  });

  it("lists every delivery, newest first: event, the object its body names, state, and each attempt with the app's answer", async () => {
    const endpoint = await app([400]);
    const sim = await simulator([{ kind: 'payment', id: 'PAY-1', status: 'PAID' }]);
    sim.forwarder.forwardTo(endpoint.url);
    sim.forwarder.dropWebhooks(1);
    sim.forwarder.enqueue({ event: 'payment.created', body: '{"id":"PAY-1","status":"PENDING"}' });
    await sim.forwarder.idle();
    sim.forwarder.dropWebhooks(0);
    sim.forwarder.enqueue({ event: 'payment.paid', body: '{"id":"PAY-1","status":"PAID"}' });
    await sim.forwarder.idle();

    const { html } = await page(sim.page);
    expect(html).toContain(`Webhooks go to <code>${endpoint.url}</code>.`);
    const rows = html.split('<tr id="').slice(1);
    expect(rows.map((row) => row.slice(0, 'whd_000001'.length))).toEqual(['whd_000002', 'whd_000001']);
    expect(rowWith(html, 'whd_000001')).toMatch(
      /^whd_000001 payment\.created PAY-1 dropped not sent body .* Send again$/,
    );
    expect(rowWith(html, 'whd_000002')).toMatch(
      /^whd_000002 payment\.paid PAY-1 delivered \d\d:\d\d:\d\d HTTP 400 signature mismatch \d\d:\d\d:\d\d HTTP 200 body /,
    );
  });

  it('"Send again" re-sends the exact signed body through the forwarder and shows the app\'s 2xx answer', async () => {
    const endpoint = await app();
    const sim = await simulator([{ kind: 'payment', id: 'PAY-1', status: 'PAID' }]);
    sim.forwarder.forwardTo(endpoint.url);
    sim.forwarder.dropWebhooks(1);
    const body = '{"id":"PAY-1","status":"PAID"}';
    sim.forwarder.enqueue({ event: 'payment.paid', body });
    await sim.forwarder.idle();
    expect(endpoint.received).toEqual([]);

    const before = await page(sim.page);
    expect(before.html).toContain('Every webhook is dropped (--drop-webhooks all).');
    const sent = await post(sim.page, { token: tokenOf(before.html), delivery: 'whd_000001' });
    expect(sent.status).toBe(303);
    expect(sent.headers.get('location')).toBe(`${EVENT_LOG_PATH}#whd_000001`);
    expect(endpoint.received).toEqual([
      { body, headers: expect.objectContaining({ 'x-signature': `sig(${body.length})` }) },
    ]);
    expect(sim.forwarder.deliveries[0]?.state).toBe('delivered');
    const after = await page(sim.page);
    expect(rowWith(after.html, 'whd_000001')).toMatch(
      /^whd_000001 payment\.paid PAY-1 delivered \d\d:\d\d:\d\d HTTP 200 body/,
    );
    // The page's own requests are not reads of any object.
    expect(rowWith(after.html, '<td>payment</td>')).toBe('payment PAY-1 PAID none');
  });

  it.each([
    ['without the page token', {}, { delivery: 'whd_000001' }, 'no token of this page'],
    ['with another token', {}, { delivery: 'whd_000001', token: 'f'.repeat(32) }, 'no token of this page'],
    [
      'from another loopback origin',
      { origin: 'http://127.0.0.1:5173' },
      undefined,
      'came from http://127.0.0.1:5173',
    ],
    ['from a cross-site page', { 'sec-fetch-site': 'cross-site' }, undefined, 'Sec-Fetch-Site: cross-site'],
    [
      'from another loopback port (same-site)',
      { 'sec-fetch-site': 'same-site' },
      undefined,
      'Sec-Fetch-Site: same-site',
    ],
    [
      'addressed to another host name (DNS rebinding)',
      { host: 'rebound.example' },
      undefined,
      'rebound.example',
    ],
  ])('refuses a "Send again" %s: 403, nothing sent', async (_case, headers, fields, reason) => {
    const endpoint = await app();
    const sim = await simulator([]);
    sim.forwarder.forwardTo(endpoint.url);
    sim.forwarder.dropWebhooks(1);
    sim.forwarder.enqueue({ event: 'payment.paid', body: '{}' });
    await sim.forwarder.idle();
    const token = tokenOf((await page(sim.page)).html);
    expect(token).toMatch(/^[0-9a-f]{32}$/);
    const own = `127.0.0.1:${sim.port}`;
    const form = new URLSearchParams(fields ?? { token, delivery: 'whd_000001' }).toString();
    const refused = await rawFormPost(sim.port, EVENT_LOG_PATH, form, { host: own, ...headers });
    expect([refused.status, refused.headers['x-frame-options']]).toEqual([403, 'DENY']);
    expect(refused.body).toContain(reason);
    await sim.forwarder.idle();
    expect(endpoint.received).toEqual([]);
    expect(sim.forwarder.deliveries[0]?.state).toBe('dropped');

    // The page's own button, as the browser sends it, is taken.
    const own303 = await rawFormPost(
      sim.port,
      EVENT_LOG_PATH,
      new URLSearchParams({ token, delivery: 'whd_000001' }).toString(),
      {
        host: own,
        origin: `http://${own}`,
        'sec-fetch-site': 'same-origin',
      },
    );
    expect(own303.status).toBe(303);
    expect(endpoint.received).toHaveLength(1);
  });

  it('answers a view addressed to another host name 403 (a rebound page cannot read the bodies)', async () => {
    const sim = await simulator([]);
    const rebound = await rawRequest(sim.port, 'GET', EVENT_LOG_PATH, {
      host: `rebound.example:${sim.port}`,
    });
    expect(rebound.status).toBe(403);
    expect(rebound.body).not.toContain('Event log');
    const own = await rawRequest(sim.port, 'GET', EVENT_LOG_PATH, { host: `localhost:${sim.port}` });
    expect(own.status).toBe(200);
  });

  it('answers an unknown delivery 404 and one still being delivered 409, sending nothing', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let calls = 0;
    const slow = await startLoopbackServer(async (req, res) => {
      await readRequestBody(req);
      calls += 1;
      if (calls === 2) await held;
      res.end('ok');
    });
    servers.push(slow);
    const sim = await simulator([]);
    sim.forwarder.forwardTo(`${slow.url}/webhooks`);
    sim.forwarder.enqueue({ event: 'payment.paid', body: '{}' });
    await sim.forwarder.idle();
    const token = tokenOf((await page(sim.page)).html);
    const unknown = await post(sim.page, { token, delivery: 'whd_000042' });
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain('No webhook delivery whd_000042 in this forwarder&#39;s log.');

    sim.forwarder.enqueue({ event: 'payment.paid', body: '{"n":2}' });
    await vi.waitFor(() => expect(calls).toBe(2));
    const inFlight = await post(sim.page, { token, delivery: 'whd_000002' });
    expect(inFlight.status).toBe(409);
    expect(await inFlight.text()).toContain('is still being delivered');
    release();
    await sim.forwarder.idle();
    expect(calls).toBe(2);
  });

  it('renders ids, events and bodies inert: a <script> in any of them is text', async () => {
    const endpoint = await app();
    const evil = '<script>alert(1)</script>';
    const sim = await simulator([{ kind: `payment${evil}`, id: `PAY-${evil}`, status: `PAID${evil}` }]);
    sim.forwarder.forwardTo(endpoint.url);
    sim.forwarder.dropWebhooks(1);
    sim.forwarder.enqueue({
      event: `payment.paid${evil}`,
      body: JSON.stringify({ id: `PAY-${evil}`, note: evil }),
    });
    await sim.forwarder.idle();
    await fetch(`${sim.url}/status/${encodeURIComponent(`PAY-${evil}`)}`);
    const { html } = await page(sim.page);
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('<code>PAY-&lt;script&gt;alert(1)&lt;/script&gt;</code>');
    expect(html).toContain('payment.paid&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&quot;note&quot;:&quot;&lt;script&gt;alert(1)&lt;/script&gt;&quot;');
    expect(html).toContain('PAID&lt;script&gt;');
  });

  it('refreshes itself only when asked (?refresh=5), and always offers a refresh link', async () => {
    const sim = await simulator([]);
    const plain = await page(sim.page);
    expect(plain.html).not.toContain('http-equiv="refresh"');
    expect(plain.html).toContain(`<a href="${EVENT_LOG_PATH}">Refresh</a>`);
    expect((await page(`${sim.page}?refresh=5`)).html).toContain('<meta http-equiv="refresh" content="5">');
    expect((await page(`${sim.page}?refresh=x"><script>`)).html).not.toContain('http-equiv');
  });
});
