/**
 * The fixture adapter of the conformance suite's own tests: an adapter for the fixture gateway
 * (gateway-simulator.ts) built on `@pay/core/adapter` as a contributor would build one, with each money bug the
 * suite must catch available as a planted `bug`. Without a bug it honours the whole contract.
 */
import {
  type AdapterTypes,
  type Checkout,
  defineAdapter,
  type EnvelopeReading,
  idempotencyKeyOf,
  keyedReference,
  moneyMovingRefusal,
  type OperationContext,
  type Payment,
  ProviderApiError,
  type ProviderErrorTable,
  parseJson,
  parseReply,
  requestIdOf,
  toMajorUnits,
  toMinorUnits,
  ValidationError,
  verifyHmacHeader,
  WebhookVerificationError,
  webhookEvent,
} from '../../src/adapter-toolkit.js';
import { createProviderClient, type ProviderCall } from '../../src/http/index.js';
import { amountIssues } from '../../src/money.js';
import * as v from '../../src/schema.js';
import { GATEWAY_REQUEST_ID_HEADER, GATEWAY_SIGNATURE, type GatewayConfig } from './gateway-simulator.js';

/** The bugs the suite's own tests plant, one at a time. */
export const PLANTED_BUGS = [
  'unknown-status-read-as-paid',
  'abandoned-read-as-paid',
  'failed-read-as-paid',
  'refund-marked-retry-safe',
  'checkout-marked-retry-safe',
  'float-amount-conversion',
  'missing-not-found-rule',
  'record-names-another-provider',
  'forged-webhook-accepted',
  'replayed-webhook-accepted',
  'credential-in-error',
  'refusal-after-lost-reply-final',
  'retry-starts-again',
  'read-marked-not-retry-safe',
  'refund-ignores-failed-check',
  'unreadable-reply-read-as-refusal',
  'reference-per-instance',
  'webhook-key-per-instance',
] as const;

export type PlantedBug = (typeof PLANTED_BUGS)[number];

/** The fixture's provider name: provider names are open, so an adapter from anywhere names itself. */
export const GATEWAY_PROVIDER = 'fixtureGateway';

interface GatewayTypes extends AdapterTypes {
  provider: typeof GATEWAY_PROVIDER;
  metadata: { 'checkouts.create': { email: string } };
  rawEvents: { 'fixtureGateway.charge.success': unknown };
  checkout: Checkout;
  operations: 'checkouts.create' | 'payments.retrieve' | 'refunds.create';
  events: 'payment.succeeded' | 'payment.failed';
}

/** The gateway's status word → unified status. Anything else is not money received. */
const STATUSES: ReadonlyMap<string, Payment['status']> = new Map([
  ['success', 'succeeded'],
  ['failed', 'failed'],
  ['abandoned', 'canceled'],
  ['reversed', 'failed'],
  ['ongoing', 'pending'],
  ['pending', 'pending'],
  ['processing', 'processing'],
]);

/** The envelope of every gateway reply. */
const envelopeSchema = v.looseObject({
  status: v.boolean(),
  message: v.optional(v.string()),
  data: v.unknown(),
});

const transactionSchema = v.looseObject({
  reference: v.string(),
  amount: v.number(),
  currency: v.string(),
  email: v.string(),
  status: v.string(),
});

/** Creates the fixture adapter for `config`, with `bug` planted. */
export function createGatewayAdapter(config: GatewayConfig, bug?: PlantedBug) {
  const provider = GATEWAY_PROVIDER;
  // What tells this adapter instance from another (only the per-instance planted bugs read it).
  const instance = crypto.randomUUID();
  // The provider name the records carry (the planted bug: one copied from another adapter).
  const named = bug === 'record-names-another-provider' ? ('providerN' as string) : provider;
  // A live secret key moves real money: its records say so (docs/architecture.md#records).
  const livemode = config.live === true;
  const errors: ProviderErrorTable =
    bug === 'missing-not-found-rule'
      ? {}
      : { 'Transaction reference not found': { status: 404, kind: 'not_found', notFound: true } };
  const client = createProviderClient({
    provider: GATEWAY_PROVIDER,
    baseUrl: config.baseUrl,
    ...(config.fetch ? { fetch: config.fetch } : {}),
    ...(config.retry === undefined ? {} : { retry: config.retry }),
    ...(config.timeoutMs === undefined ? {} : { timeoutMs: config.timeoutMs }),
    secrets: [config.secretKey],
    requestIdHeader: GATEWAY_REQUEST_ID_HEADER,
    authorization: { header: async () => `Bearer ${config.secretKey}` },
    errors,
    readEnvelope(reply, call): EnvelopeReading {
      // A reply that is not the gateway's envelope proves nothing about what it did: unreadable, never a refusal
      // (the planted bug: read as a refusal, which says nothing moved).
      const body =
        reply.status < 400 && bug !== 'unreadable-reply-read-as-refusal'
          ? parseReply(envelopeSchema, parseJson(reply.text), { provider, call: call.call })
          : (parseJson(reply.text) as { status?: unknown; message?: unknown; data?: unknown } | undefined);
      if (body?.status === true && reply.status < 300) return { ok: true, body: body.data };
      const message = typeof body?.message === 'string' ? body.message : undefined;
      return { ok: false, code: message, message };
    },
  });

  /** Sends a call that moves money; a refusal that may have landed (a duplicate reference) is outcome unknown. */
  async function moveMoney(call: ProviderCall) {
    const outcome = await client.send(call);
    if (outcome.ok) return outcome;
    if (bug === 'credential-in-error' && outcome.reply.status === 401)
      throw new ProviderApiError({
        provider: GATEWAY_PROVIDER,
        status: 401,
        message: `The gateway refused the key ${config.secretKey.slice(0, 20)}…`,
      });
    if (bug === 'refusal-after-lost-reply-final') throw outcome.error;
    throw moneyMovingRefusal(outcome.error, outcome.reply, {
      mayHaveLanded: /duplicate/i.test(outcome.error.providerMessage ?? ''),
    });
  }

  /** The unified status of the gateway's word (each read-as-paid bug plants itself here). */
  function statusOf(word: string): Payment['status'] {
    if (bug === 'unknown-status-read-as-paid') return STATUSES.get(word) ?? 'succeeded';
    if (bug === 'abandoned-read-as-paid' && word === 'abandoned') return 'succeeded';
    if (bug === 'failed-read-as-paid' && word === 'failed') return 'succeeded';
    return STATUSES.get(word) ?? 'pending';
  }

  /** Checks `amount` against `currency` before any call and converts it to the wire's minor units. */
  function checkAmount(amount: number | undefined, currency: string, operation: string): number {
    const issues = amountIssues(amount, 'amount', { unit: 'major', currency });
    if (issues.length > 0) throw new ValidationError(issues, { operation });
    return bug === 'float-amount-conversion'
      ? (amount as number) * 100
      : toMinorUnits(amount as number, currency);
  }

  /**
   * The merchant reference: derived from the idempotency key, so a repeat sends the same one (the planted bug: a
   * repeat starts again under a new reference, which the gateway takes for a new request).
   */
  const reference = async (options: OperationContext) => {
    const key = idempotencyKeyOf(options);
    if (key === undefined || bug === 'retry-starts-again') return crypto.randomUUID();
    // The planted bug: the reference also depends on this adapter instance, so a retry from another process
    // (a resume after a crash) sends a reference the gateway has never seen and the money moves again.
    return keyedReference(bug === 'reference-per-instance' ? `${key}:${instance}` : key);
  };

  /** Reads a transaction by its reference (`null`: the gateway holds none); a read, so retried. */
  const verify = (reference: string, options: OperationContext) =>
    client.findReplied(transactionSchema, {
      call: 'verify',
      method: 'GET',
      path: `/transaction/verify/${encodeURIComponent(reference)}`,
      retrySafe: bug !== 'read-marked-not-retry-safe',
      ...(options.signal ? { signal: options.signal } : {}),
    });

  return defineAdapter<GatewayTypes>({
    provider,
    operations: {
      async createCheckout(params, options) {
        const currency = params.currency ?? 'NGN';
        const amount = checkAmount(params.amount, currency, 'checkouts.create');
        const email = String(params.provider_metadata?.email ?? '');
        const outcome = await moveMoney({
          call: 'initialize',
          method: 'POST',
          path: '/transaction/initialize',
          json: {
            email,
            amount,
            currency,
            reference: await reference(options),
          },
          retrySafe: bug === 'checkout-marked-retry-safe',
          movesMoney: true,
          ...(options.signal ? { signal: options.signal } : {}),
        });
        const data = outcome.body as { authorization_url: string; reference: string };
        return {
          id: data.reference,
          payment_url: data.authorization_url,
          amount: params.amount ?? 0,
          currency,
          customer: { email },
          session_type: 'one_time',
          products: [],
          expires_at: null,
          provider: named,
          raw: outcome.body,
          metadata: params.metadata ?? {},
          livemode,
          request_id: requestIdOf(outcome.reply),
        };
      },
      async retrievePayment(id, options) {
        const found = await verify(id, options);
        if (found === null) return null;
        const { body } = found;
        const status = statusOf(body.status);
        const amount = toMajorUnits(body.amount, body.currency);
        return {
          id: body.reference,
          amount,
          amount_paid: status === 'succeeded' ? amount : 0,
          currency: body.currency,
          status,
          customer: { email: body.email },
          item_id: null,
          requires_action: status === 'pending',
          payment_url: null,
          provider: named,
          raw: found.raw,
          metadata: {},
          livemode,
          request_id: found.requestId,
        };
      },
      async createRefund(params, options) {
        const currency = params.currency ?? 'NGN';
        const amount =
          params.amount === undefined ? undefined : checkAmount(params.amount, currency, 'refunds.create');
        // Two steps: the transaction is read first, so a refund of a reference the gateway does not hold stops
        // before the money step (the planted bug: a failed read is ignored and the refund sent anyway).
        const held = await verify(params.payment_id, options).catch((error: unknown) => {
          if (bug === 'refund-ignores-failed-check') return undefined;
          throw error;
        });
        if (held === null)
          throw new ProviderApiError({
            provider: GATEWAY_PROVIDER,
            status: 404,
            kind: 'not_found',
            message: `The gateway holds no transaction ${params.payment_id} to refund.`,
          });
        const outcome = await moveMoney({
          call: 'refund',
          method: 'POST',
          path: '/refund',
          json: { transaction: params.payment_id, amount, merchant_reference: await reference(options) },
          retrySafe: bug === 'refund-marked-retry-safe',
          movesMoney: true,
          ...(options.signal ? { signal: options.signal } : {}),
        });
        const data = outcome.body as { id: number; amount: number };
        return {
          id: String(data.id),
          payment_id: params.payment_id,
          amount: toMajorUnits(data.amount, currency),
          currency,
          status: 'pending',
          reason: params.reason ?? null,
          provider: named,
          raw: outcome.body,
          metadata: params.metadata ?? {},
          livemode,
          request_id: requestIdOf(outcome.reply),
        };
      },
    },
    webhooks: {
      rawEventNames: ['fixtureGateway.charge.success'],
      eventNames: ['payment.succeeded', 'payment.failed'],
      secret: 'required',
      async verify(delivery, webhookSecrets) {
        const { secretIndex } =
          bug === 'forged-webhook-accepted'
            ? { secretIndex: 0 }
            : await verifyHmacHeader(delivery, webhookSecrets, GATEWAY_SIGNATURE);
        const body = parseJson(delivery.body) as {
          event?: string;
          data?: v.InferOutput<typeof transactionSchema>;
        };
        const data = body?.data;
        if (!data || typeof data.reference !== 'string')
          throw new WebhookVerificationError('The delivery is not a gateway event.', {
            reason: 'malformed_payload',
          });
        // The planted bugs: a key that differs per delivery attempt, or per adapter instance (so deduplication
        // matches within one process, never across the processes behind one endpoint).
        const key =
          bug === 'replayed-webhook-accepted'
            ? crypto.randomUUID()
            : `${data.reference}:${data.status}${bug === 'webhook-key-per-instance' ? `:${instance}` : ''}`;
        return {
          key,
          secretIndex,
          async events() {
            const status = statusOf(data.status);
            const payment: Payment = {
              id: data.reference,
              amount: toMajorUnits(data.amount, data.currency),
              amount_paid: status === 'succeeded' ? toMajorUnits(data.amount, data.currency) : 0,
              currency: data.currency,
              status,
              customer: { email: data.email },
              item_id: null,
              requires_action: false,
              payment_url: null,
              provider: named,
              raw: body,
              metadata: {},
              livemode,
              request_id: null,
            };
            const type = status === 'succeeded' ? 'payment.succeeded' : 'payment.failed';
            return [webhookEvent({ key: [key], type, provider, data: payment, created: 0 })];
          },
        };
      },
    },
  });
}
