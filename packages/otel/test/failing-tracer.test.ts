/**
 * A tracer that throws (a broken exporter, an SDK bug) must never change what the application does: the payment
 * goes through, the webhook is answered, nothing reaches the process as an uncaught exception (which ends a
 * process without a handler), and each failure is a `warn` line on the logger given to `instrumentPay`.
 */
import type { Span, Tracer, TracerProvider } from '@opentelemetry/api';
import { createPay } from '@pay/core';
import { createProviderN } from '@pay/provider-n';
import { providerNWebhookRequest, startProviderNSimulator } from '@pay/provider-n/testing';
import { createProviderT } from '@pay/provider-t';
import {
  generateProviderTKeyPair,
  sampleTransferMetadata,
  startProviderTSimulator,
} from '@pay/provider-t/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { instrumentPay, type PayInstrumentation } from '../src/index.js';

const keyPair = generateProviderTKeyPair();
const exporterDown = new Error('span exporter is down');

/** A tracer provider whose tracer fails in `startSpan`. */
const throwingProvider: TracerProvider = {
  getTracer: () =>
    ({
      startSpan(): Span {
        throw exporterDown;
      },
    }) as unknown as Tracer,
};

let uncaught: unknown[];
const onUncaught = (error: unknown) => uncaught.push(error);
let warnings: Array<{ message: string; details: unknown }>;
let instrumentation: PayInstrumentation;

beforeEach(() => {
  uncaught = [];
  warnings = [];
  process.on('uncaughtException', onUncaught);
  instrumentation = instrumentPay({
    tracerProvider: throwingProvider,
    logger: { warn: (message, details) => warnings.push({ message, details }) },
  });
});
afterEach(() => {
  instrumentation.disable();
  process.off('uncaughtException', onUncaught);
});

/** `diagnostics_channel` rethrows a subscriber's error on the next tick: give it that tick, and a few more. */
async function afterPendingTicks(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('a tracer whose startSpan throws', () => {
  it('lets a Provider T transfer complete, with no uncaught exception and each failure logged', async () => {
    const sim = await startProviderTSimulator({ keyPair });
    try {
      const pay = createPay(createProviderT(sim.adapterConfig({ retry: 0 })));
      const payment = await pay.payments.create(
        { amount: 100, currency: 'USD', provider_metadata: sampleTransferMetadata },
        { idempotencyKey: 'order-untraced-1' },
      );
      await afterPendingTicks();

      expect(payment.status).toBe('succeeded');
      expect(sim.requests.filter((request) => /\/commit$/.test(request.path))).toHaveLength(1);
      expect(uncaught).toEqual([]);
      // The operation, each provider call (quote, login, update, commit) and each of their attempts.
      expect(warnings.map((warning) => warning.message)).toEqual(
        Array.from({ length: 9 }, () => expect.stringMatching(/^@pay\/otel: could not start span "/)),
      );
      expect(warnings[0]).toEqual({
        message: '@pay/otel: could not start span "payments.create"; the operation is not affected.',
        details: { error: exporterDown },
      });
    } finally {
      await sim.close();
    }
  });

  it('answers a webhook as without tracing, with no uncaught exception', async () => {
    const sim = await startProviderNSimulator();
    try {
      const pay = createPay(createProviderN(sim.adapterConfig({ retry: 0 })));
      const handler = pay.webhooks.setup({ webhookSecret: sim.credentials.webhookSecret });
      const forged = await providerNWebhookRequest(
        {
          eventType: 'SUCCESSFUL_TRANSACTION',
          eventData: {
            transactionReference: 'PN|1',
            paymentStatus: 'PAID',
            amountPaid: 10,
            totalPayable: 10,
          },
        },
        { webhookSecret: 'not-the-webhook-secret' },
      );
      const error = await handler.handle(forged).catch((caught: unknown) => caught);
      await afterPendingTicks();

      expect((error as { code?: string }).code).toBe('webhook_verification_failed');
      expect(uncaught).toEqual([]);
      expect(warnings.map((warning) => warning.message)).toEqual([
        '@pay/otel: could not record the webhook span; the operation is not affected.',
      ]);
    } finally {
      await sim.close();
    }
  });
});
