/**
 * A Provider T commit the provider holds longer than the idempotency lease (docs/architecture.md#idempotency), two
 * `createPay` instances over one ledger, the simulator on loopback: the attempt renews its lease while the commit
 * is held, so the other instance's retry is told the key is in progress and its `pay.resolve(key)` answers
 * `unknown` instead of `not_found`; once the commit lands, resolve finds the transfer, committed once.
 */
import { createMemoryIdempotencyStore, createPay } from '@pay/core';
import { createProviderT } from '@pay/provider-t';
import { sampleTransferMetadata, startProviderTSimulator } from '@pay/provider-t/testing';
import { expect, it } from 'vitest';

const LEASE_SECONDS = 5;
const COMMIT_HELD_MS = 9_000;

it('keeps the key while a commit is held 9 s under a 5 s lease: resolve elsewhere says unknown, money moves once', async () => {
  const sim = await startProviderTSimulator();
  try {
    const store = createMemoryIdempotencyStore();
    const config = sim.adapterConfig({ retry: 0, timeoutMs: 20_000 });
    const holder = createPay(createProviderT(config), {
      idempotency: store,
      idempotencyLeaseSeconds: LEASE_SECONDS,
    });
    const other = createPay(createProviderT(config), {
      idempotency: store,
      idempotencyLeaseSeconds: LEASE_SECONDS,
    });
    sim.faults.inject({ method: 'PUT', path: /\/commit$/, fault: { kind: 'delay', ms: COMMIT_HELD_MS } });
    const params = { amount: 100, currency: 'USD', provider_metadata: sampleTransferMetadata };
    const key = 'order-held-commit';
    const started = Date.now();
    const call = holder.payments.create(params, { idempotencyKey: key });

    // Past the lease, while the provider still holds the commit.
    await new Promise((resolve) => setTimeout(resolve, (LEASE_SECONDS + 1.5) * 1000));
    expect(sim.committedTransfers).toBe(0);
    await expect(other.payments.create(params, { idempotencyKey: key })).rejects.toMatchObject({
      code: 'idempotency_in_progress',
    });
    expect(await other.resolve(key)).toEqual({
      status: 'unknown',
      reason: expect.stringContaining('in progress'),
      askAgainAt: expect.any(String),
    });

    const payment = await call;
    expect(Date.now() - started).toBeGreaterThanOrEqual(COMMIT_HELD_MS);
    expect(await other.resolve(key)).toMatchObject({
      status: 'found',
      source: 'ledger',
      record: { id: payment.id },
    });
    expect(sim.committedTransfers).toBe(1);
    expect(sim.quotes).toBe(1);
  } finally {
    await sim.close();
  }
}, 30_000);
