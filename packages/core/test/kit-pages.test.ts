import { afterEach, describe, expect, it } from 'vitest';
import {
  addHostedPages,
  escapeHtml,
  type HostedPageView,
  type LoopbackServer,
  type PayerAction,
  RequestLog,
  Routes,
  readRequestBody,
  simulatorListener,
  startLoopbackServer,
  WebhookForwarder,
} from '../src/testing/index.js';
import { rawFormPost } from './raw-request.js';

const servers: LoopbackServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

interface Book {
  status: 'PENDING' | 'PAID' | 'FAILED' | 'CANCELLED';
  description: string;
  successUrl?: string;
  cancelUrl?: string;
}

/** A tiny simulator: one payment book, hosted pages at /pay/:id, webhooks forwarded to an app. */
async function hostedPageSimulator(book: Map<string, Book>) {
  const deliveries: string[] = [];
  const app = await startLoopbackServer(async (req, res) => {
    await new Promise((resolve) => setTimeout(resolve, 30));
    deliveries.push(await readRequestBody(req));
    res.end();
  });
  servers.push(app);
  const forwarder = new WebhookForwarder({ sign: () => ({ 'x-signature': 'ok' }) });
  forwarder.forwardTo(`${app.url}/webhooks`);
  const outcomes = { pay: 'PAID', fail: 'FAILED', cancel: 'CANCELLED' } as const;
  const routes = new Routes();
  addHostedPages(routes, {
    provider: 'Provider Q',
    path: '/pay/:id',
    forwarder,
    find(id): HostedPageView | undefined {
      const payment = book.get(id);
      if (!payment) return undefined;
      return {
        provider: 'Provider Q',
        heading: 'Pay CZK 250.50',
        details: [
          ['Description', payment.description],
          ['Status', payment.status],
        ],
        actions: payment.status === 'PENDING' ? ['pay', 'fail', 'cancel'] : [],
        successUrl: payment.successUrl,
        cancelUrl: payment.cancelUrl,
      };
    },
    act(id, action: PayerAction) {
      const payment = book.get(id);
      if (!payment) throw new Error('gone');
      if (id === 'refuse') throw new Error('The card <issuer> declined');
      payment.status = outcomes[action];
      forwarder.enqueue({ event: 'payment.changed', body: JSON.stringify({ id, status: payment.status }) });
    },
  });
  const server = await startLoopbackServer(simulatorListener({ routes, requests: new RequestLog() }));
  servers.push(server);
  return { server, deliveries };
}

const post = (url: string, action: string) =>
  fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ action }),
  });

describe('the simulator kit hosted pages', () => {
  it('shows the payment with Pay, Fail and Cancel forms, escaping every merchant value', async () => {
    const book = new Map<string, Book>([
      ['p1', { status: 'PENDING', description: '<script>alert("x")</script> & Co\'s' }],
    ]);
    const { server } = await hostedPageSimulator(book);
    const page = await fetch(`${server.url}/pay/p1`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await page.text();
    expect(html).toContain('<h1>Pay CZK 250.50</h1>');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; Co&#39;s');
    expect(html).not.toContain('<script>');
    for (const [action, label] of [
      ['pay', 'Pay'],
      ['fail', 'Fail'],
      ['cancel', 'Cancel'],
    ]) {
      expect(html).toContain(
        `<form method="post" action="/pay/p1"><input type="hidden" name="action" value="${action}"><button type="submit" class="${action}">${label}</button></form>`,
      );
    }
  });

  it('Pay applies the action, delivers the webhook before answering 303 to the success URL', async () => {
    const book = new Map<string, Book>([
      [
        'p1',
        {
          status: 'PENDING',
          description: 'Order 7',
          successUrl: 'http://shop.test/ok?o=7',
          cancelUrl: 'http://shop.test/cancel',
        },
      ],
    ]);
    const { server, deliveries } = await hostedPageSimulator(book);
    const answer = await post(`${server.url}/pay/p1`, 'pay');
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('http://shop.test/ok?o=7');
    expect(book.get('p1')?.status).toBe('PAID');
    expect(deliveries).toEqual(['{"id":"p1","status":"PAID"}']);
    const again = await post(`${server.url}/pay/p1`, 'pay');
    expect(again.status).toBe(409);
    expect(deliveries).toHaveLength(1);
  });

  it('Cancel goes to the cancel URL; Fail to the cancel URL when there is no fail URL', async () => {
    const book = new Map<string, Book>([
      [
        'c1',
        {
          status: 'PENDING',
          description: 'x',
          successUrl: 'http://shop.test/ok',
          cancelUrl: 'http://shop.test/cancel',
        },
      ],
      [
        'f1',
        {
          status: 'PENDING',
          description: 'x',
          successUrl: 'http://shop.test/ok',
          cancelUrl: 'http://shop.test/cancel',
        },
      ],
    ]);
    const { server } = await hostedPageSimulator(book);
    const cancelled = await post(`${server.url}/pay/c1`, 'cancel');
    expect([cancelled.status, cancelled.headers.get('location')]).toEqual([303, 'http://shop.test/cancel']);
    expect(book.get('c1')?.status).toBe('CANCELLED');
    const failed = await post(`${server.url}/pay/f1`, 'fail');
    expect([failed.status, failed.headers.get('location')]).toEqual([303, 'http://shop.test/cancel']);
    expect(book.get('f1')?.status).toBe('FAILED');
  });

  it('answers unknown payments 404, unknown actions 409, a refused action 409 with its escaped reason, and no return URL with a notice', async () => {
    const book = new Map<string, Book>([
      ['refuse', { status: 'PENDING', description: 'x' }],
      ['n1', { status: 'PENDING', description: 'x', successUrl: 'javascript:alert(1)' }],
    ]);
    const { server, deliveries } = await hostedPageSimulator(book);
    expect((await fetch(`${server.url}/pay/none`)).status).toBe(404);
    expect((await post(`${server.url}/pay/refuse`, 'steal')).status).toBe(409);
    const refused = await post(`${server.url}/pay/refuse`, 'pay');
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain('The card &lt;issuer&gt; declined');
    const noReturn = await post(`${server.url}/pay/n1`, 'pay');
    expect(noReturn.status).toBe(200);
    expect(await noReturn.text()).toContain('<h1>Paid</h1>');
    expect(deliveries).toEqual(['{"id":"n1","status":"PAID"}']);
  });

  it('a page keeping the id in the query (idOf): the form posts back with the query, and the action gets the id', async () => {
    const acted: [string, PayerAction][] = [];
    const routes = new Routes();
    addHostedPages(routes, {
      provider: 'Provider Q',
      path: '/pay',
      idOf: (request) => request.query.id,
      find: (id) =>
        id === 't 1'
          ? {
              provider: 'Provider Q',
              heading: 'Pay CZK 1.00',
              details: [],
              actions: ['pay', 'fail', 'cancel'],
              successUrl: 'https://shop.test/paid',
            }
          : undefined,
      act: (id, action) => void acted.push([id, action]),
    });
    const server = await startLoopbackServer(simulatorListener({ routes, requests: new RequestLog() }));
    servers.push(server);
    const html = await (await fetch(`${server.url}/pay?id=t%201`)).text();
    const action = /<form method="post" action="([^"]+)">/.exec(html)?.[1];
    expect(action).toBe('/pay?id=t+1');
    const paid = await post(`${server.url}${action}`, 'pay');
    expect([paid.status, paid.headers.get('location')]).toEqual([303, 'https://shop.test/paid']);
    expect(acted).toEqual([['t 1', 'pay']]);
    expect((await fetch(`${server.url}/pay?id=other`)).status).toBe(404);
  });

  it('refuses a form POST from another site, another loopback origin, a null origin or a rebound host name: 403, nothing paid, no webhook', async () => {
    const book = new Map<string, Book>([
      ['p1', { status: 'PENDING', description: 'Order 7', successUrl: 'http://shop.test/ok' }],
    ]);
    const { server, deliveries } = await hostedPageSimulator(book);
    const own = `127.0.0.1:${server.port}`;
    const refusals: [Record<string, string>, string][] = [
      [{ origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }, 'Sec-Fetch-Site: cross-site'],
      [{ origin: 'http://127.0.0.1:5173', 'sec-fetch-site': 'same-site' }, 'Sec-Fetch-Site: same-site'],
      [{ origin: 'http://127.0.0.1:5173' }, 'came from http://127.0.0.1:5173'],
      [{ origin: 'null' }, 'came from null'],
      [
        { host: `rebound.example:${server.port}`, origin: `http://rebound.example:${server.port}` },
        'rebound.example',
      ],
    ];
    for (const [headers, reason] of refusals) {
      const answer = await rawFormPost(server.port, '/pay/p1', 'action=pay', { host: own, ...headers });
      expect([answer.status, answer.headers['x-frame-options']]).toEqual([403, 'DENY']);
      expect(answer.body).toContain('<h1>Action refused</h1>');
      expect(answer.body).toContain(reason);
    }
    // Refused the same for a payment that does not exist: a foreign page learns nothing about references.
    expect(
      (await rawFormPost(server.port, '/pay/none', 'action=pay', { host: own, origin: 'null' })).status,
    ).toBe(403);
    expect(book.get('p1')?.status).toBe('PENDING');
    expect(deliveries).toEqual([]);

    const ownPage = await rawFormPost(server.port, '/pay/p1', 'action=pay', {
      host: own,
      origin: `http://${own}`,
      'sec-fetch-site': 'same-origin',
    });
    expect([ownPage.status, ownPage.headers.location]).toEqual([303, 'http://shop.test/ok']);
    expect(book.get('p1')?.status).toBe('PAID');
    expect(deliveries).toEqual(['{"id":"p1","status":"PAID"}']);
  });

  it('forbids framing of every page it serves (X-Frame-Options and CSP frame-ancestors)', async () => {
    const book = new Map<string, Book>([['p1', { status: 'PENDING', description: 'x' }]]);
    const { server } = await hostedPageSimulator(book);
    for (const page of [await fetch(`${server.url}/pay/p1`), await fetch(`${server.url}/pay/none`)]) {
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      expect(page.headers.get('content-security-policy')).toBe("frame-ancestors 'none'");
    }
  });

  it('escapes the five HTML-special characters', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });
});
