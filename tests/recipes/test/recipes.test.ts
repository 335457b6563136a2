/**
 * The root README's webhook-mounting recipes, run as written (docs/architecture.md#test-suites): real
 * Express 4 and 5, a Next.js-style `Request` route handler, and plain Node, each on a loopback port, with
 * Provider N's HMAC-signed deliveries. For each recipe: a genuine delivery is answered 200 and its callback ran; a
 * forged one is answered 400 with a JSON body (never an HTML page) and the process keeps serving; behind a global
 * `express.json()` a genuine delivery is answered 503 (retryable) saying the body was already parsed.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import {
  createMemoryDeduplicationStore,
  createPay,
  replyFor,
  toFetchHandler,
  toNodeListener,
} from '@pay/core';
import { createProviderN } from '@pay/provider-n';
import { providerNWebhookRequest } from '@pay/provider-n/testing';
import express4 from 'express4';
import express5 from 'express5';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const WEBHOOK_SECRET = 'recipes-secret-key';

let servers: Server[] = [];
let unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeEach(() => {
  unhandled = [];
  // An unhandled rejection ends a real Node process; vitest would only report it, so record it instead.
  process.on('unhandledRejection', onUnhandled);
});

afterEach(async () => {
  process.off('unhandledRejection', onUnhandled);
  // A recipe that never answered (an unhandled rejection in Express 4) leaves its connection open: cut it.
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  servers = [];
});

/** The README's handler, with a callback that records what it saw. */
function readmeHandler() {
  const paid: string[] = [];
  // Hand-built on purpose: no simulator runs here, the handler only
  // verifies deliveries signed with WEBHOOK_SECRET, configured as the README's recipe configures it.
  const pay = createPay(
    createProviderN({ apiKey: 'recipes-api-key', secretKey: WEBHOOK_SECRET, isSandbox: true }),
  );
  const handler = pay.webhooks
    .setup({ webhookSecret: WEBHOOK_SECRET, deduplicate: createMemoryDeduplicationStore() })
    .on('payment.created', async (event) => {
      if (event.data.status === 'succeeded') paid.push(event.data.id);
    });
  return { handler, paid };
}

type Handler = ReturnType<typeof readmeHandler>['handler'];

async function listen(listener: RequestListener): Promise<string> {
  const server = createServer(listener);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

let deliveries = 0;
/** A genuine Provider N delivery of a new paid transaction (a new reference each time, so none is a duplicate). */
async function genuine() {
  deliveries += 1;
  const reference = `MNFY|RECIPE|${deliveries}`;
  const request = await providerNWebhookRequest(
    {
      eventType: 'SUCCESSFUL_TRANSACTION',
      eventData: {
        transactionReference: reference,
        paymentReference: `order-${deliveries}`,
        amountPaid: 5000,
        totalPayable: 5000,
        settlementAmount: 4925,
        paidOn: '2026-11-22 10:20:11',
        paymentStatus: 'PAID',
        paymentDescription: 'Blue mug',
        currency: 'NGN',
        paymentMethod: 'CARD',
        customer: { email: 'ada@example.com', name: 'Ada Obi' },
        metaData: { orderId: String(deliveries) },
      },
    },
    { webhookSecret: WEBHOOK_SECRET },
  );
  // The helper types its headers as a plain object of strings (intersected with WebhookRequest's wider type).
  const headers = request.headersAsObject as Record<string, string>;
  return { reference, body: request.body, headers };
}

async function post(url: string, delivery: { body: string; headers: Record<string, string> }) {
  // A recipe that never answers fails here within seconds instead of hanging the test.
  const response = await fetch(`${url}/webhooks`, {
    method: 'POST',
    body: delivery.body,
    headers: delivery.headers,
    signal: AbortSignal.timeout(5_000),
  });
  const text = await response.text();
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', text };
}

/** Every recipe: started on a loopback port with the given handler; `jsonFirst` puts a global `express.json()` in front. */
interface Recipe {
  name: string;
  start(handler: Handler, options: { jsonFirst: boolean }): Promise<string>;
  /** Whether the recipe can have a global body parser in front of it. */
  parsers: boolean;
}

type ExpressModule = typeof express4;

/** README, "Express": the bridge on the webhook route, mounted before the app's global body parsers. */
function expressBridgeRecipe(name: string, express: ExpressModule): Recipe {
  return {
    name,
    parsers: true,
    async start(handler, { jsonFirst }) {
      const app = express();
      if (jsonFirst) app.use(express.json()); // the mistake: a global parser in front of the webhook route
      app.post('/webhooks', toNodeListener(handler, { publicOrigin: 'https://shop.example' }));
      app.use(express.json());
      return listen(app);
    },
  };
}

/** README, "Express, keeping the raw body yourself": `express.raw` on the route, `replyFor` around `handle`. */
function expressRawRecipe(name: string, express: ExpressModule): Recipe {
  return {
    name,
    parsers: true,
    async start(handler, { jsonFirst }) {
      const app = express();
      if (jsonFirst) app.use(express.json());
      app.post('/webhooks', express.raw({ type: '*/*' }), async (req, res) => {
        const reply = await replyFor(
          handler.handle({
            body: req.body,
            headersAsObject: req.headers,
            fullUrl: `https://shop.example${req.originalUrl}`,
          }),
        );
        res.status(reply.status).json(reply.body);
      });
      return listen(app);
    },
  };
}

/** README, "Plain Node". */
const plainNodeRecipe: Recipe = {
  name: 'plain Node createServer(toNodeListener(handler))',
  parsers: false,
  async start(handler) {
    return listen(toNodeListener(handler, { publicOrigin: 'https://shop.example' }));
  },
};

/**
 * README, "Next.js (app router)": `export const POST = toFetchHandler(handler, …)`. Next.js hands the route a Web
 * `Request`; here a small Node server does the same conversion.
 */
const nextRecipe: Recipe = {
  name: 'Next.js-style route handler (toFetchHandler)',
  parsers: false,
  async start(handler) {
    const POST = toFetchHandler(handler, { publicOrigin: 'https://shop.example' });
    return listen(async (req, res) => {
      const request = new Request(`http://127.0.0.1${req.url}`, {
        method: req.method,
        headers: Object.entries(req.headers).flatMap(([name, value]) =>
          value === undefined
            ? []
            : [[name, Array.isArray(value) ? value.join(', ') : value] as [string, string]],
        ),
        body: Readable.toWeb(req) as ReadableStream<Uint8Array>,
        duplex: 'half',
      } as RequestInit);
      const response = await POST(request);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(await response.text());
    });
  },
};

const recipes: Recipe[] = [
  plainNodeRecipe,
  nextRecipe,
  expressBridgeRecipe('Express 4 with the bridge on the route', express4),
  expressBridgeRecipe('Express 5 with the bridge on the route', express5),
  expressRawRecipe('Express 4 with express.raw and replyFor(handler.handle(…))', express4),
  expressRawRecipe('Express 5 with express.raw and replyFor(handler.handle(…))', express5),
];

describe.each(recipes)('README recipe: $name', (recipe) => {
  it('answers a genuine delivery 200 after its callback ran', async () => {
    const { handler, paid } = readmeHandler();
    const url = await recipe.start(handler, { jsonFirst: false });
    const delivery = await genuine();
    const reply = await post(url, delivery);
    expect(reply.status).toBe(200);
    expect(reply.contentType).toMatch(/^application\/json/);
    expect(JSON.parse(reply.text)).toEqual({ received: true, events: 2, duplicates: 0 });
    expect(paid).toEqual([delivery.reference]);
  });

  it('answers a forged delivery 400 in JSON, and keeps serving genuine ones after it', async () => {
    const { handler, paid } = readmeHandler();
    const url = await recipe.start(handler, { jsonFirst: false });
    const forged = await genuine();
    const reply = await post(url, {
      ...forged,
      headers: { ...forged.headers, 'providerN-signature': 'ab'.repeat(64) },
    });
    expect(reply.status).toBe(400);
    expect(reply.contentType).toMatch(/^application\/json/);
    expect(reply.text).not.toMatch(/<html|<pre|\n\s+at /i);
    expect(JSON.parse(reply.text)).toMatchObject({ error: 'webhook_verification_failed' });
    // Let a rejection nobody handled surface before checking for it.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(unhandled).toEqual([]);

    const next = await genuine();
    expect((await post(url, next)).status).toBe(200);
    expect(paid).toEqual([next.reference]);
  });

  it.runIf(recipe.parsers)(
    'answers 503 saying the body was already parsed when a global express.json() runs first',
    async () => {
      const { handler, paid } = readmeHandler();
      const url = await recipe.start(handler, { jsonFirst: true });
      const reply = await post(url, await genuine());
      expect(reply.status).toBe(503);
      expect(reply.contentType).toMatch(/^application\/json/);
      const body = JSON.parse(reply.text);
      expect(body.error).toBe('webhook_verification_failed');
      expect(body.message).toMatch(/already parsed/);
      expect(body.message).toMatch(/before .*body parser|express\.raw\(\{ type: '\*\/\*' \}\)/);
      expect(body.message).not.toContain(WEBHOOK_SECRET);
      expect(paid).toEqual([]);
    },
  );
});
