/**
 * The fixture gateway's declaration to the conformance suite: what an adapter package writes in its own
 * `test/contract.test.ts`, here for the fixture adapter with an optional planted bug.
 */
import { hmacSignature } from '../../src/adapter-toolkit.js';
import { type CallOptions, ConfigurationError, type WebhookRequest } from '../../src/index.js';
import type { AdapterContract, SimulatorContext } from '../../src/testing/contract.js';
import { createGatewayAdapter, type PlantedBug } from './gateway-adapter.js';
import {
  GATEWAY_SECRET_KEY,
  GATEWAY_SIGNATURE,
  GATEWAY_SIGNATURE_HEADER,
  type GatewaySimulator,
  gatewaySimulatorDescriptor,
  startGatewaySimulator,
} from './gateway-simulator.js';

type GatewayAdapter = ReturnType<typeof createGatewayAdapter>;

const EVENT = JSON.stringify({
  event: 'charge.success',
  data: { reference: 'ref_paid', amount: 1999, currency: 'NGN', email: 'ada@example.com', status: 'success' },
});

/** `body` as the gateway delivers it: signed with HMAC-SHA512 of the secret key, unless `secret` says otherwise. */
async function signed(body: string, secret = GATEWAY_SECRET_KEY): Promise<WebhookRequest> {
  return {
    body,
    headersAsObject: { [GATEWAY_SIGNATURE_HEADER]: await hmacSignature(secret, body, GATEWAY_SIGNATURE) },
    fullUrl: 'https://shop.example/webhooks/gateway',
  };
}

type Context = SimulatorContext<GatewaySimulator, GatewayAdapter>;

/** Opens a checkout through `pay` for `amount` of `currency`. */
const checkout = (context: Pick<Context, 'pay'>, amount = 50, currency = 'NGN', options: CallOptions = {}) =>
  context.pay.checkouts.create(
    { amount, currency, provider_metadata: { email: 'ada@example.com' } },
    options,
  );

/** A paid transaction's reference, to refund. */
async function paid(context: Context): Promise<string> {
  const opened = await checkout(context);
  context.simulator.setStatus(opened.id, 'success');
  return opened.id;
}

/** The fixture's default factory: reads its one variable when called. */
function gatewayFromEnvironment(bug?: PlantedBug) {
  const secretKey = process.env.FIXTURE_GATEWAY_SECRET_KEY;
  if (!secretKey)
    throw new ConfigurationError('Set FIXTURE_GATEWAY_SECRET_KEY to the gateway secret key.', {
      missing: ['FIXTURE_GATEWAY_SECRET_KEY'],
    });
  return createGatewayAdapter({ baseUrl: 'https://gateway.invalid', secretKey }, bug);
}

/** The fixture's contract, with `bug` planted in the adapter. */
export function gatewayContract(bug?: PlantedBug): AdapterContract<GatewaySimulator, GatewayAdapter> {
  return {
    name: `fixture gateway${bug ? ` with ${bug}` : ''}`,
    createAdapter: (fetch) =>
      createGatewayAdapter(
        { baseUrl: 'https://gateway.invalid', secretKey: GATEWAY_SECRET_KEY, retry: 0, fetch },
        bug,
      ),
    defaultFactory: () => gatewayFromEnvironment(bug),
    requiredEnv: ['FIXTURE_GATEWAY_SECRET_KEY'],
    webhookSecret: GATEWAY_SECRET_KEY,
    genuineWebhook: () => signed(EVENT),
    tamperedWebhooks: [
      {
        name: 'amount changed after signing',
        tamper: (genuine) => ({ ...genuine, body: String(genuine.body).replace('1999', '1') }),
      },
      { name: 'signature removed', tamper: (genuine) => ({ ...genuine, headersAsObject: {} }) },
      { name: 'signed with another secret', tamper: () => signed(EVENT, 'sk_test_forger') },
    ],
    simulator: {
      start: startGatewaySimulator,
      descriptor: gatewaySimulatorDescriptor,
      webhookSecret: () => GATEWAY_SECRET_KEY,
      liveSettings: { live: true },
      createAdapter: (simulator, settings) => createGatewayAdapter(simulator.adapterConfig(settings), bug),
      credentials: () => [GATEWAY_SECRET_KEY],
      async produceRecords(context) {
        const opened = await checkout(context);
        return [opened, await context.pay.payments.retrieve(opened.id)];
      },
      async refusedCall(context) {
        const opened = await checkout(context);
        return context.pay.refunds.create({ payment_id: opened.id, amount: 10, currency: 'NGN' });
      },
      statuses: {
        paid: ['success'],
        failed: ['failed', 'abandoned', 'reversed'],
        notPaid: ['ongoing', 'pending', 'processing'],
        async read(context, status) {
          const opened = await checkout(context);
          context.simulator.setStatus(opened.id, status);
          return context.pay.payments.retrieve(opened.id);
        },
      },
      moneyMovingCalls: [
        {
          name: 'checkouts.create',
          method: 'POST',
          path: /^\/transaction\/initialize$/,
          send: (context, _prepared, options) => checkout(context, 50, 'NGN', options),
          moved: (simulator) => simulator.books().transactions.length,
        },
        {
          name: 'refunds.create',
          method: 'POST',
          path: /^\/refund$/,
          prepare: paid,
          send: (context, prepared, options) =>
            context.pay.refunds.create(
              { payment_id: prepared as string, amount: 10, currency: 'NGN' },
              options,
            ),
          moved: (simulator) => simulator.books().refunds.length,
        },
      ],
      amounts: {
        unit: 'minor',
        recordUnit: 'major',
        currencies: [
          { currency: 'NGN', decimals: 2 },
          { currency: 'JPY', decimals: 0 },
          { currency: 'KWD', decimals: 3 },
        ],
        send: (context, amount, currency) => checkout(context, amount, currency),
        path: /^\/transaction\/initialize$/,
        wireAmount: (request) => (JSON.parse(request.body) as { amount: unknown }).amount,
      },
      unknownIds: { 'payments.retrieve': 'ref_never_issued' },
    },
  };
}
