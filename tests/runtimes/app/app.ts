/**
 * The application each runtime serves, bundled by esbuild from the built packages (their `dist`): the adapters and
 * core's webhook handler as an app wires them, behind one fetch handler. The test (in Node) drives it over loopback:
 *
 * | route | what it does |
 * |---|---|
 * | `GET /factories` | calls every adapter factory (explicit and default) and says what each did |
 * | `POST /checkouts/{provider}` | opens a checkout on that provider's simulator through `createPay` |
 * | `POST /webhooks/{provider}` | the provider's webhook handler through `toFetchHandler` |
 * | `GET /events` | the events the handlers' callbacks received, in order |
 * | `GET /globals` | which of the globals core may miss the runtime has (`typeof WeakRef`) |
 *
 * A failed checkout answers 500 with the error's name, code, outcome and message, so the test reads the error a
 * user would see on that runtime.
 */
import { createPay, type PayEvent, toFetchHandler } from '@pay/core';
import { createProviderN, type ProviderNConfig, providerN } from '@pay/provider-n';
import { createProviderR, type ProviderRConfig, providerR } from '@pay/provider-r';
import { createProviderT, type ProviderTConfig, providerT } from '@pay/provider-t';
import type { sampleTransferMetadata } from '@pay/provider-t/testing';

/** What the test hands the runtime: each simulator's adapter config and webhook secret. */
export interface RuntimeAppConfig {
  providerN: { adapter: ProviderNConfig; webhookSecret: string };
  providerR: { adapter: ProviderRConfig; webhookSecret: string };
  /** `transfer`: the sender, receiver and purpose of a transfer (the simulator's sample). */
  providerT: { adapter: ProviderTConfig; transfer: typeof sampleTransferMetadata };
}

/** What one factory did: `ok`, or the error it threw. */
export type FactoryOutcome = 'ok' | { name: string; message: string };

/** The JSON of a failed request. */
export interface FailedCall {
  error: { name: string; code?: string; outcome?: string; message: string };
}

/** The checkout each provider opens, as the runtime returns it: the id its payer acts on. */
export interface OpenedCheckout {
  paymentId: string;
  paymentUrl: string | null;
}

/** Builds the app's fetch handler. No I/O, and no adapter built, until a request needs one. */
export function createRuntimeApp(config: RuntimeAppConfig): (request: Request) => Promise<Response> {
  const events: string[] = [];
  let wired: Wired | undefined;
  return async (request) => {
    const { pathname } = new URL(request.url);
    const [, route, provider = ''] = pathname.split('/');
    // Whatever fails (an adapter that cannot be built on this runtime included) is answered, never thrown, so
    // the test reads the error a user would see.
    try {
      if (request.method === 'GET' && route === 'factories') return json(200, factoryOutcomes(config));
      if (request.method === 'GET' && route === 'events') return json(200, events);
      if (request.method === 'GET' && route === 'globals') return json(200, { WeakRef: typeof WeakRef });
      wired ??= wire(config, events);
      const webhook = route === 'webhooks' ? wired.webhooks[provider] : undefined;
      if (request.method === 'POST' && webhook) return await webhook(request);
      const checkout = route === 'checkouts' ? wired.checkouts[provider] : undefined;
      if (request.method === 'POST' && checkout) return json(200, await checkout());
      return json(404, { error: { name: 'NotFound', message: `${request.method} ${pathname}` } });
    } catch (error) {
      return json(500, failed(error));
    }
  };
}

/** Each provider's webhook handler and checkout, by route segment. */
interface Wired {
  webhooks: Record<string, (request: Request) => Promise<Response>>;
  checkouts: Record<string, () => Promise<OpenedCheckout>>;
}

/** The adapters behind `createPay`, as an app wires them; each event a callback receives goes to `events`. */
function wire(config: RuntimeAppConfig, events: string[]): Wired {
  const record = (provider: string) => (event: PayEvent) => {
    events.push(`${provider} ${event.type} ${(event.data as { id?: string }).id ?? ''}`.trim());
  };
  const n = createPay(createProviderN({ ...config.providerN.adapter, retry: 0 }));
  const r = createPay(createProviderR({ ...config.providerR.adapter, retry: 0 }));
  const t = createPay(createProviderT({ ...config.providerT.adapter, retry: 0 }));
  return {
    webhooks: {
      'provider-n': toFetchHandler(
        n.webhooks.setup({ webhookSecret: config.providerN.webhookSecret }).onAny(record('provider-n')),
      ),
      'provider-r': toFetchHandler(
        r.webhooks.setup({ webhookSecret: config.providerR.webhookSecret }).onAny(record('provider-r')),
      ),
      'provider-t': toFetchHandler(t.webhooks.setup({ webhookSecret: null }).onAny(record('provider-t'))),
    },
    checkouts: {
      async 'provider-n'() {
        const checkout = await n.checkouts.create({
          customer: { email: 'ada@shop.test' },
          item_id: 'blue-mug',
          success_url: 'https://shop.example/back',
          provider_metadata: { amount: 5000, currency: 'NGN', customerName: 'Ada Obi' },
        });
        return { paymentId: checkout.id, paymentUrl: checkout.payment_url ?? null };
      },
      async 'provider-r'() {
        const { transId, redirectUrl } = await r.adapter.createCheckoutRedirect({
          customer: { email: 'ada@shop.test' },
          item_id: 'order-1001',
          amount: 250,
          currency: 'CZK',
          success_url: 'https://shop.example/paid',
          cancel_url: 'https://shop.example/cancelled',
        });
        return { paymentId: transId, paymentUrl: redirectUrl };
      },
      async 'provider-t'() {
        const checkout = await t.checkouts.create({
          provider_metadata: { ...config.providerT.transfer, amount: 100, currency: 'USD' },
        });
        return { paymentId: checkout.id, paymentUrl: checkout.payment_url ?? null };
      },
    },
  };
}

/** Every adapter factory, explicit (`createProviderX(config)`) and default (`providerX(overrides)`). */
function factoryOutcomes(config: RuntimeAppConfig): Record<string, FactoryOutcome> {
  const factories: Record<string, () => unknown> = {
    createProviderN: () => createProviderN(config.providerN.adapter),
    providerN: () => providerN(config.providerN.adapter),
    createProviderR: () => createProviderR(config.providerR.adapter),
    providerR: () => providerR(config.providerR.adapter),
    createProviderT: () => createProviderT(config.providerT.adapter),
    providerT: () => providerT(config.providerT.adapter),
  };
  const outcomes: Record<string, FactoryOutcome> = {};
  for (const [name, factory] of Object.entries(factories)) {
    try {
      factory();
      outcomes[name] = 'ok';
    } catch (error) {
      outcomes[name] = { name: (error as Error).name, message: (error as Error).message };
    }
  }
  return outcomes;
}

function failed(error: unknown): FailedCall {
  const { name, code, outcome, message } = error as Error & { code?: string; outcome?: string };
  return { error: { name, code, outcome, message } };
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}
