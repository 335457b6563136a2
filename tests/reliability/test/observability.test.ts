/**
 * What core publishes on its tracing channels (docs/architecture.md#tracing-channels) for real adapter calls
 * against the simulators: the exact start and end fields of a Provider T transfer whose commit is answered 503
 * once and retried, of a webhook refused for its signature, and of a money-moving call whose reply was lost
 * (outcome `unknown`).
 */
import { createPay, PAY_CHANNELS } from '@pay/core';
import { createProviderN } from '@pay/provider-n';
import { providerNWebhookRequest, startProviderNSimulator } from '@pay/provider-n/testing';
import { createProviderT } from '@pay/provider-t';
import {
  generateProviderTKeyPair,
  type ProviderTSimulator,
  sampleTransferMetadata,
  startProviderTSimulator,
} from '@pay/provider-t/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ChannelRecorder, recordChannels } from './channels.js';
import { rejectionOf } from './support.js';

const keyPair = generateProviderTKeyPair();
const paymentParams = { amount: 100, currency: 'USD', provider_metadata: sampleTransferMetadata };
const KEY = 'order-observed-1';

let channels: ChannelRecorder;
beforeEach(() => {
  channels = recordChannels({ scan: false });
});
afterEach(() => channels.stop());

async function withProviderT<T>(body: (sim: ProviderTSimulator) => Promise<T>): Promise<T> {
  const sim = await startProviderTSimulator({ keyPair });
  try {
    return await body(sim);
  } finally {
    await sim.close();
  }
}

/** The fields every call and attempt of Provider T against this simulator share. */
function server(sim: ProviderTSimulator) {
  const url = new URL(sim.url);
  return { provider: 'providerT', serverAddress: url.hostname, serverPort: Number(url.port) };
}

describe('a Provider T transfer whose commit is answered 503 once', () => {
  it('publishes the operation, each call (the commit with two attempts) and each attempt, linked by ids', async () => {
    await withProviderT(async (sim) => {
      const pay = createPay(createProviderT({ ...sim.adapterConfig, retry: 2 }));
      sim.faults.inject({
        method: 'PUT',
        path: /\/commit$/,
        times: 1,
        fault: { kind: 'status', status: 503, body: '' },
      });
      const payment = await pay.payments.create(paymentParams, { idempotencyKey: KEY });

      const [operationStart, ...moreOperations] = channels.of(PAY_CHANNELS.operation, 'start');
      expect(moreOperations).toEqual([]);
      expect(operationStart).toEqual({
        id: expect.any(String),
        provider: 'providerT',
        operation: 'payments.create',
        idempotencyKey: KEY,
      });
      expect(channels.of(PAY_CHANNELS.operation, 'asyncEnd')).toEqual([
        {
          ...operationStart,
          outcome: 'succeeded',
          recordId: payment.id,
          requestId: payment.request_id,
          result: undefined,
        },
      ]);

      const base = server(sim);
      const calls = channels.of(PAY_CHANNELS.call, 'start');
      const callEnds = channels.of(PAY_CHANNELS.call, 'asyncEnd');
      // In start order: the quote starts first; its first attempt needs a token, so the login starts inside it.
      const expected = [
        {
          call: 'POST /transfer/v1/transactions/quote',
          method: 'POST',
          urlTemplate: '/transfer/v1/transactions/quote',
          attempts: 1,
          status: 200,
        },
        {
          call: 'GET /oauth/accesstoken',
          method: 'GET',
          urlTemplate: '/oauth/accesstoken',
          attempts: 1,
          status: 200,
        },
        {
          call: 'PUT /transfer/v1/transactions/{transactionId}',
          method: 'PUT',
          urlTemplate: '/transfer/v1/transactions/{id}',
          attempts: 1,
          status: 200,
        },
        {
          call: 'PUT /transfer/v1/transactions/{transactionId}/commit',
          method: 'PUT',
          urlTemplate: '/transfer/v1/transactions/{id}/commit',
          attempts: 2,
          status: 200,
        },
      ];
      expect(calls).toEqual(
        expected.map(({ attempts: _a, status: _s, ...fields }) => ({
          id: expect.any(String),
          parentId: operationStart!.id,
          ...base,
          ...fields,
          requestId: expect.any(String),
          idempotencyKey: KEY,
          attempts: 0,
        })),
      );
      // The login ends before the quote that waited for it.
      expect(callEnds.map((end) => end.call)).toEqual([1, 0, 2, 3].map((index) => expected[index]!.call));
      expect(calls.map((start) => callEnds.find((end) => end.id === start.id))).toEqual(
        calls.map((start, index) => ({
          ...start,
          attempts: expected[index]!.attempts,
          status: expected[index]!.status,
          outcome: 'succeeded',
          result: undefined,
        })),
      );
      // Each call's request id is the one sent on the wire, the same on both commit attempts.
      const commit = calls[3]!;
      const commitsOnWire = sim.requests.filter((request) => /\/commit$/.test(request.path));
      expect(commitsOnWire.map((request) => request.headers['x-client-request-id'])).toEqual([
        commit.requestId,
        commit.requestId,
      ]);

      const attempts = channels.of(PAY_CHANNELS.attempt, 'start');
      expect(attempts).toEqual(
        [1, 0, 2, 3, 3].map((callIndex, index) => {
          const { attempts: _a, status: _s, ...fields } = expected[callIndex]!;
          return {
            id: expect.any(String),
            parentId: calls[callIndex]!.id,
            ...base,
            ...fields,
            requestId: calls[callIndex]!.requestId,
            attempt: index === 4 ? 1 : 0,
          };
        }),
      );
      expect(channels.of(PAY_CHANNELS.attempt, 'asyncEnd')).toEqual(
        attempts.map((start, index) => ({
          ...start,
          status: index === 3 ? 503 : 200,
          ...(index === 3 ? { errorType: '503' } : {}),
          mayHaveReached: true,
        })),
      );
      expect(channels.of(PAY_CHANNELS.attempt, 'error')).toEqual([]);
      // Nothing of the payment's personal data or metadata, and no body, is in any message.
      const serialised = JSON.stringify(channels.messages.map((item) => item.message));
      expect(serialised).not.toContain(sampleTransferMetadata.sender.name.firstName);
      expect(serialised).not.toContain('"text"');
    });
  });
});

describe('a money-moving call whose reply is lost', () => {
  it("ends the operation, the call and the attempt with outcome 'unknown' and the error the caller got", async () => {
    await withProviderT(async (sim) => {
      const pay = createPay(createProviderT({ ...sim.adapterConfig, retry: 0 }));
      sim.faults.inject({ method: 'PUT', path: /\/commit$/, fault: { kind: 'drop-after' } });
      const error = await rejectionOf(pay.payments.create(paymentParams, { idempotencyKey: KEY }));
      expect(error).toMatchObject({ context: { step: 'commit', outcome: 'unknown' } });

      const [operationEnd] = channels.of(PAY_CHANNELS.operation, 'asyncEnd');
      expect(operationEnd).toEqual({
        id: expect.any(String),
        provider: 'providerT',
        operation: 'payments.create',
        idempotencyKey: KEY,
        outcome: 'unknown',
        errorType: 'NetworkError',
        error,
      });
      expect(channels.of(PAY_CHANNELS.operation, 'error')).toHaveLength(1);
      const commitEnd = channels
        .of(PAY_CHANNELS.call, 'asyncEnd')
        .find((call) => call.call === 'PUT /transfer/v1/transactions/{transactionId}/commit');
      expect(commitEnd).toMatchObject({
        parentId: operationEnd!.id,
        attempts: 1,
        outcome: 'unknown',
        errorType: 'NetworkError',
      });
      expect(commitEnd).not.toHaveProperty('status');
      const commitAttempt = channels
        .of(PAY_CHANNELS.attempt, 'asyncEnd')
        .find((attempt) => attempt.parentId === commitEnd!.id);
      expect(commitAttempt).toMatchObject({ attempt: 0, errorType: 'network', mayHaveReached: true });
      expect(commitAttempt).not.toHaveProperty('status');
    });
  });
});

describe('a webhook refused for its signature', () => {
  it('publishes one pay:webhook message: not verified, the reason, the 400 answered, no delivery key', async () => {
    const sim = await startProviderNSimulator();
    try {
      const pay = createPay(createProviderN({ ...sim.adapterConfig(), retry: 0 }));
      const handler = pay.webhooks.setup({ webhookSecret: sim.credentials.webhookSecret });
      const before = Date.now();
      const payload = {
        eventType: 'SUCCESSFUL_TRANSACTION',
        eventData: { transactionReference: 'PN|1', paymentStatus: 'PAID', amountPaid: 10, totalPayable: 10 },
      };
      const forged = await providerNWebhookRequest(payload, { webhookSecret: 'not-the-webhook-secret' });
      await rejectionOf(handler.handle(forged));
      expect(channels.of(PAY_CHANNELS.webhook, 'publish')).toEqual([
        {
          provider: 'providerN',
          verified: false,
          reason: 'invalid_signature',
          deliveryKey: undefined,
          eventTypes: [],
          duplicate: false,
          callbackFailures: 0,
          status: 400,
          startTime: expect.any(Number),
          durationMs: expect.any(Number),
        },
      ]);
      const [message] = channels.of(PAY_CHANNELS.webhook, 'publish');
      expect(message!.startTime as number).toBeGreaterThanOrEqual(before);
      expect(channels.of(PAY_CHANNELS.call, 'start')).toEqual([]);
    } finally {
      await sim.close();
    }
  });
});
