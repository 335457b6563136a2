/**
 * What every README recipe is held to, on its real framework over loopback, with Provider N's HMAC-signed
 * deliveries (root README, "Mount it"): a genuine delivery is answered 200 after its callback ran, also at 200 kB;
 * a forged one 400 in JSON (never an HTML page); an empty POST 400 (never "a body parser ran first"); a body over
 * the bridges' 1 MiB limit 413 in JSON; and each time the process keeps serving genuine deliveries. A recipe that
 * can have a body parser in front of it answers a genuine delivery 503 then, naming the fix for its framework.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { providerNWebhookRequest } from '@pay/provider-n/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

export const WEBHOOK_SECRET = 'recipes-secret-key';
/** The bridges' default `maxBodyBytes`, which every recipe must accept. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** One running recipe: where it listens, and the transactions its callback marked paid since it started. */
export interface Started {
  url: string;
  paid(): Promise<string[]>;
}

/** A README recipe, started on a loopback port; `parserFirst` puts the framework's body parser in front of it. */
export interface Recipe {
  name: string;
  start(options: { parserFirst: boolean }): Promise<Started>;
  /**
   * How the recipe's framework can parse the body before the webhook route, and what the 503's message must then
   * name as the fix; absent when nothing can run in front of it.
   */
  parserFirst?: { fix: RegExp; notFix: RegExp };
}

const servers: Server[] = [];
let unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeEach(() => {
  unhandled = [];
  // An unhandled rejection ends a real Node process; vitest would only report it, so record it instead.
  process.on('unhandledRejection', onUnhandled);
});

afterEach(async () => {
  process.off('unhandledRejection', onUnhandled);
  // A recipe that never answered leaves its connection open: cut it.
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** Starts `listener` on a free loopback port, stopped after the test. */
export async function listen(listener: RequestListener): Promise<string> {
  const server = createServer(listener);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Remembers a server a framework started itself (Fastify, Hono's node-server), stopped after the test. */
export function stopAfterTest(server: Server): void {
  servers.push(server);
}

let deliveries = 0;
/**
 * A genuine Provider N delivery of a new paid transaction (a new reference each time, so none is a duplicate),
 * padded to about `size` bytes with order metadata.
 */
export async function genuine(size = 0) {
  deliveries += 1;
  const reference = `MNFY|RECIPE|${process.pid}|${deliveries}`;
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
        metaData: { orderId: String(deliveries), note: 'n'.repeat(size) },
      },
    },
    { webhookSecret: WEBHOOK_SECRET },
  );
  // The helper types its headers as a plain object of strings (intersected with WebhookRequest's wider type).
  const headers = request.headersAsObject as Record<string, string>;
  return { reference, body: request.body, headers };
}

/** POSTs to the recipe's webhook route; a recipe that never answers fails here within seconds. */
export async function post(url: string, delivery: { body: string; headers: Record<string, string> }) {
  const response = await fetch(`${url}/webhooks`, {
    method: 'POST',
    body: delivery.body,
    headers: delivery.headers,
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', text };
}

/**
 * An empty POST to the webhook route, written on a socket so that no client adds a header: no Content-Type, and
 * `lengthHeader` (a raw header line, or nothing).
 */
async function emptyPost(url: string, lengthHeader: string) {
  const { hostname, port, pathname } = new URL(`${url}/webhooks`);
  const socket = connect(Number(port), hostname);
  socket.setTimeout(10_000, () => socket.destroy(new Error('no reply within 10 s')));
  socket.end(
    `POST ${pathname} HTTP/1.1\r\nhost: ${hostname}:${port}\r\n${lengthHeader}connection: close\r\n\r\n`,
  );
  const chunks: Buffer[] = [];
  for await (const chunk of socket) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  const [head = '', ...rest] = raw.split('\r\n\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
  const contentType = /^content-type:\s*(.*)$/im.exec(head)?.[1] ?? '';
  let text = rest.join('\r\n\r\n');
  // A chunked reply (Fastify, Next): keep the chunks' data only.
  if (/^transfer-encoding:\s*chunked/im.test(head)) text = dechunk(text);
  return { status, contentType, text };
}

function dechunk(body: string): string {
  let text = '';
  let rest = body;
  for (;;) {
    const end = rest.indexOf('\r\n');
    const size = Number.parseInt(rest.slice(0, end), 16);
    if (!size) return text;
    text += rest.slice(end + 2, end + 2 + size);
    rest = rest.slice(end + 2 + size + 2);
  }
}

/** A reply that is JSON, with no HTML error page or stack trace in it. */
function jsonBody(reply: { contentType: string; text: string }): Record<string, unknown> {
  expect(reply.contentType).toMatch(/^application\/json/);
  expect(reply.text).not.toMatch(/<html|<pre|\n\s+at /i);
  return JSON.parse(reply.text);
}

/** The recipe still answers, and processes, a genuine delivery. */
async function stillServes(started: Started): Promise<void> {
  // Let a rejection nobody handled surface before checking for it.
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(unhandled).toEqual([]);
  const next = await genuine();
  const reply = await post(started.url, next);
  expect([reply.status, reply.text]).toEqual([
    200,
    JSON.stringify({ received: true, events: 2, duplicates: 0 }),
  ]);
  expect(await started.paid()).toContain(next.reference);
}

/** Runs every check of the file comment against each recipe. */
export function describeRecipes(recipes: readonly Recipe[]): void {
  describe.each(recipes)('README recipe: $name', (recipe) => {
    it('answers a genuine delivery 200 after its callback ran', async () => {
      const started = await recipe.start({ parserFirst: false });
      const delivery = await genuine();
      const reply = await post(started.url, delivery);
      expect(reply.status).toBe(200);
      expect(jsonBody(reply)).toEqual({ received: true, events: 2, duplicates: 0 });
      expect(await started.paid()).toEqual([delivery.reference]);
    });

    it('answers a genuine 200 kB delivery 200 (within the bridges’ 1 MiB limit)', async () => {
      const started = await recipe.start({ parserFirst: false });
      const delivery = await genuine(200 * 1024);
      expect(delivery.body.length).toBeGreaterThan(200 * 1024);
      const reply = await post(started.url, delivery);
      expect([reply.status, jsonBody(reply)]).toEqual([200, { received: true, events: 2, duplicates: 0 }]);
      expect(await started.paid()).toEqual([delivery.reference]);
    });

    it('answers a forged delivery 400 in JSON, and keeps serving genuine ones after it', async () => {
      const started = await recipe.start({ parserFirst: false });
      const forged = await genuine();
      const reply = await post(started.url, {
        ...forged,
        headers: { ...forged.headers, 'providerN-signature': 'ab'.repeat(64) },
      });
      expect(reply.status).toBe(400);
      expect(jsonBody(reply)).toMatchObject({ error: 'webhook_verification_failed' });
      await stillServes(started);
      expect(await started.paid()).not.toContain(forged.reference);
    });

    it('answers an empty POST without Content-Type 400 (not "a body parser ran first"), and keeps serving', async () => {
      const started = await recipe.start({ parserFirst: false });
      // No Content-Length at all (curl -X POST), then Content-Length: 0 (what fetch sends for an empty body).
      for (const lengthHeader of ['', 'content-length: 0\r\n']) {
        const reply = await emptyPost(started.url, lengthHeader);
        expect(reply.status).toBe(400);
        const body = jsonBody(reply);
        expect(body.message).not.toMatch(/already parsed|body parser/);
      }
      await stillServes(started);
    });

    it('answers a body over 1 MiB 413 in JSON, and keeps serving', async () => {
      const started = await recipe.start({ parserFirst: false });
      const delivery = await genuine(MAX_BODY_BYTES);
      const reply = await post(started.url, delivery);
      expect(reply.status).toBe(413);
      expect(jsonBody(reply)).toEqual({
        error: 'payload_too_large',
        message: `The webhook body is larger than ${MAX_BODY_BYTES} bytes.`,
      });
      await stillServes(started);
      expect(await started.paid()).not.toContain(delivery.reference);
    });

    const parserFirst = recipe.parserFirst;
    it.runIf(parserFirst)(
      'answers 503 saying the body was already parsed, with the fix for its framework, when a parser ran first',
      async () => {
        const started = await recipe.start({ parserFirst: true });
        const reply = await post(started.url, await genuine());
        expect(reply.status).toBe(503);
        const body = jsonBody(reply);
        expect(body.error).toBe('webhook_verification_failed');
        expect(body.message).toMatch(/already parsed/);
        expect(body.message).toMatch(parserFirst?.fix ?? /./);
        expect(body.message).not.toMatch(parserFirst?.notFix ?? /$^/);
        expect(body.message).not.toContain(WEBHOOK_SECRET);
        expect(await started.paid()).toEqual([]);
      },
    );
  });
}
