/**
 * `createPay(adapter, { logger })` (docs/architecture.md#logger): a store error swallowed after a success is an
 * `error` line, an in-memory idempotency or deduplication store under NODE_ENV=production is one `warn` line,
 * `onStoreError` still receives what it did (deprecated alias), and nothing is logged without a logger.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createMemoryDeduplicationStore,
  createMemoryIdempotencyStore,
  createPay,
  type IdempotencyStore,
} from '../src/index.js';
import { createTestAdapter } from '../src/testing/index.js';

afterEach(() => vi.unstubAllEnvs());

function sink() {
  const lines: unknown[][] = [];
  const logger = {
    warn: (...args: unknown[]) => lines.push(['warn', ...args]),
    error: (...args: unknown[]) => lines.push(['error', ...args]),
  };
  return { logger, lines };
}

/** The in-memory ledger whose `complete` fails: the provider succeeded, recording the result did not. */
function storeFailingToComplete(): IdempotencyStore {
  const store = createMemoryIdempotencyStore();
  return {
    ...store,
    async complete() {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });
    },
  };
}

describe('createPay logger', () => {
  it('logs a store error swallowed after a success as an error line, and still calls onStoreError', async () => {
    const { logger, lines } = sink();
    const onStoreError = vi.fn();
    const pay = createPay(createTestAdapter().adapter, {
      idempotency: storeFailingToComplete(),
      logger,
      onStoreError,
    });
    const payment = await pay.payments.create({ amount: 10, currency: 'USD' }, { idempotencyKey: 'order-7' });
    expect(payment.id).toEqual(expect.any(String));
    expect(onStoreError).toHaveBeenCalledTimes(1);
    expect(lines).toEqual([
      [
        'error',
        expect.stringMatching(/^@pay: the idempotency store failed at complete for a payments\.create call/),
        expect.objectContaining({
          operation: 'payments.create',
          idempotencyKey: 'order-7',
          step: 'complete',
        }),
      ],
    ]);
  });

  it('warns once about in-memory stores while NODE_ENV is production, and not otherwise', () => {
    const { logger, lines } = sink();
    const adapter = createTestAdapter().adapter;
    createPay(adapter, { logger });
    expect(lines).toEqual([]);
    vi.stubEnv('NODE_ENV', 'production');
    const pay = createPay(adapter, { logger });
    createPay(adapter, { logger, idempotency: createMemoryIdempotencyStore() });
    pay.webhooks.setup({ webhookSecret: 'whsec', deduplicate: createMemoryDeduplicationStore() });
    pay.webhooks.setup({ webhookSecret: 'whsec', deduplicate: createMemoryDeduplicationStore() });
    expect(lines).toEqual([
      [
        'warn',
        expect.stringMatching(
          /^@pay: createPay uses an in-memory idempotency store while NODE_ENV is production/,
        ),
      ],
      ['warn', expect.stringMatching(/^@pay: webhooks.setup uses an in-memory deduplication store/)],
    ]);
  });

  it('is silent without a logger (no console line for the production warning)', () => {
    vi.stubEnv('NODE_ENV', 'production');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    createPay(createTestAdapter().adapter);
    expect(warn).not.toHaveBeenCalled();
    warn.mockRestore();
  });
});
