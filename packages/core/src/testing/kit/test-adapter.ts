/**
 * An in-memory adapter for unit tests that need no server (docs/architecture.md#local-loop): every operation of
 * the adapter contract over in-memory books, the payer's actions (pay, fail, cancel), and a signed webhook for
 * every status change that a `createPay(...).webhooks` handler verifies. Amounts are in the currency's standard
 * unit, as for every provider; refunds are counted in integer minor units so the books never drift.
 *
 *   const test = createTestAdapter();
 *   const pay = createPay(test.adapter);
 *   const checkout = await pay.checkouts.create({ amount: 250.5, currency: 'CZK' });
 *   await test.payer.pay(checkout.id);
 *   await test.deliverWebhooks(pay.webhooks.setup({ webhookSecret: test.webhookSecret }));
 */
import type { Adapter, OperationMethod } from '../../adapter.js';
import { defineAdapter } from '../../define-adapter.js';
import { ProviderApiError, ValidationError, type ValidationIssue } from '../../errors.js';
import { amountIssues, toMinorUnits } from '../../money.js';
import type { ProviderName } from '../../records.js';
import type { WebhookRequest, WebhookResult } from '../../webhooks/handler.js';
import type { NormalisedEventName, NormalisedEvents } from '../../webhooks/types.js';
import type { PayerActions } from './simulator.js';
import { type TestAdapterTypes, type TestBooks, testOperations } from './test-adapter-books.js';
import {
  type TestWebhookDelivery,
  type TestWebhookPayload,
  testWebhookDefinition,
  testWebhookDelivery,
} from './test-adapter-webhooks.js';

export type { TestAdapterTypes } from './test-adapter-books.js';

/** Options of {@link createTestAdapter}. */
export interface TestAdapterOptions {
  /** The provider name records and events carry (default `providerN`). */
  provider?: ProviderName;
  /** The secret deliveries are signed with (default `whsec_test_adapter`). */
  webhookSecret?: string;
  /** The `fullUrl` of each delivery (default `https://shop.test/webhooks`). */
  webhookUrl?: string;
}

/** What the in-memory provider holds (a snapshot: changing it changes nothing). */
export type TestAdapterBooks = { readonly [K in keyof TestBooks]: readonly TestBooks[K][number][] };

/** One operation call the test adapter received. */
export interface TestAdapterCall {
  method: OperationMethod;
  /** The validated arguments, without the options. */
  args: unknown[];
}

/** The test adapter, its books, its payer and its webhook outbox. */
export interface TestAdapterKit {
  adapter: Adapter<TestAdapterTypes>;
  /** Pass to `pay.webhooks.setup({ webhookSecret })`. */
  webhookSecret: string;
  /** Snapshot of the books. */
  books(): TestAdapterBooks;
  /** What the payer does, by payment or checkout id; each change queues a signed webhook. */
  payer: PayerActions;
  /** Every operation call received, in order (refused and failed ones included). */
  readonly calls: readonly TestAdapterCall[];
  /** Makes the next call of `method` throw `error` (after validation, before the books change). */
  failNext(method: OperationMethod, error: Error): void;
  /** The payloads of the webhooks not delivered yet, oldest first. */
  readonly pendingWebhooks: readonly TestWebhookPayload[];
  /** Removes the pending webhooks and returns them signed, ready for `handler.handle(delivery)`. */
  takeWebhooks(): Promise<TestWebhookDelivery[]>;
  /** Passes each pending webhook, signed, to `handler.handle()` in order, and returns the results. */
  deliverWebhooks(handler: {
    handle(request: WebhookRequest): Promise<WebhookResult>;
  }): Promise<WebhookResult[]>;
}

/** Creates an in-memory test adapter (see the module comment for a whole round trip). */
export function createTestAdapter(options: TestAdapterOptions = {}): TestAdapterKit {
  const provider = options.provider ?? 'providerN';
  const webhookSecret = options.webhookSecret ?? 'whsec_test_adapter';
  const webhookUrl = options.webhookUrl ?? 'https://shop.test/webhooks';
  const outbox: TestWebhookPayload[] = [];
  const calls: TestAdapterCall[] = [];
  const failures = new Map<OperationMethod, Error[]>();
  let sent = 0;

  const provided = testOperations({
    provider,
    emit<E extends NormalisedEventName>(type: E, data: NormalisedEvents[E]) {
      sent += 1;
      outbox.push({ id: `evt_test_${String(sent).padStart(6, '0')}`, type, created: Date.now(), data });
    },
    refuse: (status, message) =>
      new ProviderApiError({
        provider,
        status,
        providerMessage: message,
        message: `${provider} (test adapter) answered HTTP ${status}: ${message}`,
      }),
    checkAmount(operation, amount, currency) {
      const issues: ValidationIssue[] = [];
      if (currency === undefined)
        issues.push({ path: 'currency', message: 'is required by the test adapter' });
      if (amount === undefined) issues.push({ path: 'amount', message: 'is required by the test adapter' });
      else issues.push(...amountIssues(amount, 'amount', { unit: 'major', currency }));
      if (issues.length > 0) throw new ValidationError(issues, { operation });
    },
    minor: toMinorUnits,
  });

  // Every implementation records its call and throws an armed failure first; the books change only after.
  const operations = Object.fromEntries(
    Object.entries(provided.implementations).map(([method, run]) => [
      method,
      async (...args: unknown[]) => {
        calls.push({ method: method as OperationMethod, args: args.slice(0, -1) });
        const failure = failures.get(method as OperationMethod)?.shift();
        if (failure) throw failure;
        return (run as (...given: unknown[]) => Promise<unknown>)(...args);
      },
    ]),
  ) as typeof provided.implementations;

  const adapter = defineAdapter<TestAdapterTypes>({
    provider,
    operations,
    webhooks: testWebhookDefinition(provider),
    resolve: async (lookup) => provided.resolve(lookup.idempotencyKey),
  });

  const takeWebhooks = () =>
    Promise.all(outbox.splice(0).map((payload) => testWebhookDelivery(payload, webhookSecret, webhookUrl)));

  return {
    adapter,
    webhookSecret,
    books: () => structuredClone(provided.books),
    payer: {
      pay: async (id) => provided.payerAction(id, 'pay'),
      fail: async (id) => provided.payerAction(id, 'fail'),
      cancel: async (id) => provided.payerAction(id, 'cancel'),
    },
    calls,
    failNext(method, error) {
      failures.set(method, [...(failures.get(method) ?? []), error]);
    },
    get pendingWebhooks() {
      return outbox.map((payload) => structuredClone(payload));
    },
    takeWebhooks,
    async deliverWebhooks(handler) {
      const results: WebhookResult[] = [];
      for (const delivery of await takeWebhooks()) results.push(await handler.handle(delivery));
      return results;
    },
  };
}
