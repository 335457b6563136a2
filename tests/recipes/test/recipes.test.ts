/**
 * The root README's webhook-mounting recipes, run as written against their real frameworks: plain Node, Express 4
 * and 5 (the bridge on the route, and express.raw with replyFor), Fastify 5 and Hono 4. The Next.js recipe runs in a
 * real Next build (next.test.ts). What each is held to: support.ts (docs/architecture.md#test-suites).
 */
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import {
  createMemoryDeduplicationStore,
  createPay,
  replyFor,
  toFetchHandler,
  toNodeListener,
} from '@pay/core';
import { createProviderN } from '@pay/provider-n';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import express4 from 'express4';
import express5 from 'express5';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import {
  describeRecipes,
  listen,
  type Recipe,
  type Started,
  stopAfterTest,
  WEBHOOK_SECRET,
} from './support.js';

/** The README's handler, with a callback that records what it saw. */
function readmeHandler() {
  const paid: string[] = [];
  // Hand-built on purpose: no simulator runs here, the handler only verifies deliveries signed with
  // WEBHOOK_SECRET, configured as the README's recipe configures it.
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

/** A recipe whose handler lives in this process: `mount` starts the server and returns its URL. */
function inProcess(
  name: string,
  mount: (handler: Handler, options: { parserFirst: boolean }) => Promise<string>,
  parserFirst?: Recipe['parserFirst'],
): Recipe {
  return {
    name,
    parserFirst,
    async start(options): Promise<Started> {
      const { handler, paid } = readmeHandler();
      const url = await mount(handler, options);
      return { url, paid: async () => [...paid] };
    },
  };
}

type ExpressModule = typeof express4;

/** What the 503 names behind a global express.json(): Express's fix, never another framework's. */
const EXPRESS_FIX = {
  fix: /before any (global )?body parser|express\.raw\(\{ type: \(\) => true/,
  notFix: /Fastify|Hono/,
};

/** README, "Express": the bridge on the webhook route, mounted before the app's global body parsers. */
function expressBridgeRecipe(name: string, express: ExpressModule): Recipe {
  return inProcess(
    name,
    async (handler, { parserFirst }) => {
      const app = express();
      if (parserFirst) app.use(express.json()); // the mistake: a global parser in front of the webhook route
      // --- README: Express ---
      app.post('/webhooks', toNodeListener(handler, { publicOrigin: 'https://shop.example' }));
      app.use(express.json()); // the rest of your app's parsers come after the webhook route
      // --- end ---
      return listen(app);
    },
    EXPRESS_FIX,
  );
}

/** README, "Express, keeping the raw body yourself": `express.raw` on the route, `replyFor` around `handle`. */
function expressRawRecipe(name: string, express: ExpressModule): Recipe {
  return inProcess(
    name,
    async (handler, { parserFirst }) => {
      const app = express();
      if (parserFirst) app.use(express.json());
      // --- README: Express, keeping the raw body yourself ---
      // The bridges' default limit (1 MiB): express.raw's own default (100 kB) refuses large genuine deliveries.
      const WEBHOOK_BODY_LIMIT = 1024 * 1024;
      // express.raw's refusals (body over the limit, aborted, bad encoding) answered as the bridges answer them.
      const bodyRefused: ErrorRequestHandler = (error, _req, res, _next) => {
        const tooLarge = error?.type === 'entity.too.large';
        res.status(tooLarge ? 413 : 400).json({
          error: tooLarge ? 'payload_too_large' : 'bad_request',
          message: tooLarge
            ? `The webhook body is larger than ${WEBHOOK_BODY_LIMIT} bytes.`
            : 'The request body could not be read.',
        });
      };
      const receiveWebhook: RequestHandler = async (req, res) => {
        const reply = await replyFor(
          handler.handle({
            body: req.body,
            headersAsObject: req.headers,
            fullUrl: `https://shop.example${req.originalUrl}`,
          }),
        );
        res.status(reply.status).json(reply.body);
      };
      // type: () => true reads every body raw, with or without a Content-Type.
      app.post(
        '/webhooks',
        express.raw({ type: () => true, limit: WEBHOOK_BODY_LIMIT }),
        receiveWebhook,
        bodyRefused,
      );
      // --- end ---
      return listen(app);
    },
    // handle() gets only the parsed object, not the framework: its message names Express's fix among others.
    { ...EXPRESS_FIX, notFix: /Hono|c\.req\.raw/ },
  );
}

/** README, "Plain Node". */
const plainNodeRecipe = inProcess('plain Node createServer(toNodeListener(handler))', (handler) =>
  listen(toNodeListener(handler, { publicOrigin: 'https://shop.example' })),
);

/**
 * README, "Fastify": the route in its own plugin whose only content-type parser leaves the body unread, so the
 * bridge reads the raw bytes. `parserFirst` is the obvious mount without that plugin: Fastify's JSON parser reads
 * the body before the route, and the 503 must name Fastify's fix, not Express's.
 */
const fastifyRecipe = inProcess(
  'Fastify 5 with the bridge in a plugin that leaves the body unread',
  async (handler, { parserFirst }) => {
    const app = Fastify();
    if (parserFirst) {
      const webhook = toNodeListener(handler, { publicOrigin: 'https://shop.example' });
      app.post('/webhooks', (request, reply) => {
        reply.hijack();
        return webhook(request.raw, reply.raw);
      });
    } else {
      // --- README: Fastify ---
      const webhook = toNodeListener(handler, { publicOrigin: 'https://shop.example' });
      app.register(async (webhooks) => {
        // This plugin's routes only: leave every body unread, the bridge reads the raw bytes (up to its limit).
        webhooks.removeAllContentTypeParsers();
        webhooks.addContentTypeParser('*', (_request, _payload, done) => done(null));
        webhooks.post('/webhooks', (request, reply) => {
          reply.hijack(); // the bridge writes the reply
          return webhook(request.raw, reply.raw);
        });
      });
      // --- end ---
    }
    await app.listen({ port: 0, host: '127.0.0.1' });
    stopAfterTest(app.server);
    return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  },
  { fix: /Fastify.*addContentTypeParser\('\*'/, notFix: /express/ },
);

/**
 * README, "Hono": the Web bridge on `c.req.raw`, served by @hono/node-server. `parserFirst` is a middleware that
 * read the body first (`c.req.json()`).
 */
const honoRecipe = inProcess(
  'Hono 4 with toFetchHandler on c.req.raw (@hono/node-server)',
  async (handler, { parserFirst }) => {
    const app = new Hono();
    if (parserFirst) {
      app.use(async (c, next) => {
        await c.req.json().catch(() => undefined);
        await next();
      });
    }
    // --- README: Hono ---
    const webhook = toFetchHandler(handler, { publicOrigin: 'https://shop.example' });
    app.post('/webhooks', (c) => webhook(c.req.raw));
    // --- end ---
    const server = await new Promise<Server>((resolve) => {
      const started = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () =>
        resolve(started as Server),
      );
    });
    stopAfterTest(server);
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  },
  { fix: /c\.req\.raw/, notFix: /express/ },
);

describeRecipes([
  plainNodeRecipe,
  expressBridgeRecipe('Express 4 with the bridge on the route', express4),
  expressBridgeRecipe('Express 5 with the bridge on the route', express5),
  expressRawRecipe('Express 4 with express.raw and replyFor(handler.handle(…))', express4),
  expressRawRecipe('Express 5 with express.raw and replyFor(handler.handle(…))', express5),
  fastifyRecipe,
  honoRecipe,
]);

describe('the README’s recipes', () => {
  const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
  const source = readFileSync(new URL(import.meta.url), 'utf8');
  /** Code compared without layout: whitespace, and the trailing commas a formatter adds, do not count. */
  const code = (text: string) => text.replace(/\s+/g, '').replace(/,([)}\]])/g, '$1');

  it.each(['Express', 'Express, keeping the raw body yourself', 'Fastify', 'Hono'])(
    'README “%s” holds the code this file runs',
    (recipe) => {
      const marker = `// --- README: ${recipe} ---`;
      const start = source.indexOf(marker);
      const tested = source.slice(start + marker.length, source.indexOf('// --- end ---', start));
      const section = readme.slice(readme.indexOf(`**${recipe}**`));
      const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
      expect(start).toBeGreaterThan(0);
      expect(code(block)).toContain(code(tested));
    },
  );
});
