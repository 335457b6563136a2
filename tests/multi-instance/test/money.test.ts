/**
 * Money on many instances: four Node processes, each with its own `createPay` over the same provider
 * simulator and the same idempotency ledger (PostgreSQL, then Redis), make the same money-moving calls with the
 * same idempotency keys at the same time. From the simulator's books, every key moved money at most once (here:
 * exactly once, since one call won); every other call got the typed "in progress" error or the recorded result;
 * a repeat after the fact returns the recorded result without reaching the provider; the same key with another
 * request is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedStore } from './fixtures.js';
import { type CallOutcome, type Instance, startInstances, stopAllInstances } from './instances.js';
import { type ProviderUnderTest, providerN, providerR, providerT } from './providers.js';

const INSTANCES = 4;
/** Keys per operation, each used by every instance at once. */
const KEYS = 2;

const PROVIDERS = [
  ['Provider T', providerT],
  ['Provider N', providerN],
  ['Provider R', providerR],
] as const;

describe.each(['postgres', 'redis'] as const)('idempotency keys on %s, four instances', (storeKind) => {
  describe.each(PROVIDERS)('%s', (_, startProvider) => {
    let provider: ProviderUnderTest;
    let instances: Instance[];

    beforeAll(async () => {
      provider = await startProvider();
      instances = await startInstances(INSTANCES, {
        provider: provider.provider,
        adapter: provider.adapter,
        store: sharedStore(storeKind, `money_${provider.provider}`),
      });
    });

    afterAll(async () => {
      await Promise.allSettled((instances ?? []).map((instance) => instance.close()));
      await stopAllInstances();
      await provider?.close();
    });

    it('moves money once per key when every instance sends the same calls with the same keys at once', async () => {
      for (const moneyCase of provider.cases) {
        const calls = await Promise.all(
          Array.from({ length: KEYS }, async (_, index) => ({
            key: `${storeKind}-${moneyCase.operation}-${index}-${Date.now()}`,
            args: await moneyCase.prepare(index, instances[0]!),
          })),
        );
        const requestsBefore = provider.requests().length;
        const outcomes = await Promise.all(
          calls.map(({ key, args }) =>
            Promise.all(
              instances.map((instance) =>
                instance.call(moneyCase.operation, ...args, { idempotencyKey: key }),
              ),
            ),
          ),
        );
        expect(provider.requests().length).toBeGreaterThan(requestsBefore);

        for (const [index, { key, args }] of calls.entries()) {
          const perInstance = outcomes[index]!;
          const what = `${moneyCase.operation} key ${key}: ${JSON.stringify(perInstance)}`;
          // The books: the key moved money exactly once.
          expect(moneyCase.moved(args), what).toBe(1);
          const winners = perInstance.filter((outcome) => outcome.ok);
          expect(winners.length, what).toBeGreaterThanOrEqual(1);
          // Every instance that got a result got the same one: the call's, or the recorded one.
          expect(new Set(winners.map((outcome) => outcome.ok && outcome.value.id)).size, what).toBe(1);
          expect(winners[0], what).toMatchObject({ ok: true, value: moneyCase.expectedRecord(args) });
          // Every other instance was told the key is in progress, with a typed, retryable error naming the key.
          for (const outcome of perInstance.filter((candidate) => !candidate.ok)) {
            expect(outcome.ok ? undefined : outcome.error, what).toMatchObject({
              name: 'IdempotencyInProgressError',
              code: 'idempotency_in_progress',
              retryable: true,
              context: { idempotencyKey: key },
            });
          }
        }

        // Retried later, by every instance: the recorded result, and the provider is not asked again.
        const requestsAfter = provider.requests().length;
        for (const [index, { key, args }] of calls.entries()) {
          const repeats = await Promise.all(
            instances.map((instance) => instance.call(moneyCase.operation, ...args, { idempotencyKey: key })),
          );
          const first = outcomes[index]!.find((outcome) => outcome.ok) as Extract<CallOutcome, { ok: true }>;
          for (const repeat of repeats) expect(repeat).toEqual({ ok: true, value: first.value });
          expect(moneyCase.moved(args)).toBe(1);
        }
        expect(provider.requests().length).toBe(requestsAfter);
      }
    });

    it('refuses the same key with another request on any instance, typed, and moves no money for it', async () => {
      const [moneyCase] = provider.cases;
      const args = await moneyCase!.prepare(50, instances[0]!);
      const key = `${storeKind}-mismatch-${Date.now()}`;
      const first = await instances[0]!.call(moneyCase!.operation, ...args, { idempotencyKey: key });
      expect(first.ok, JSON.stringify(first)).toBe(true);
      const other = await moneyCase!.prepare(51, instances[0]!);
      const requestsBefore = provider.requests().length;

      const refused = await Promise.all(
        instances.map((instance) => instance.call(moneyCase!.operation, ...other, { idempotencyKey: key })),
      );

      for (const outcome of refused) {
        expect(outcome).toMatchObject({
          ok: false,
          error: {
            name: 'IdempotencyKeyMismatchError',
            code: 'idempotency_key_mismatch',
            retryable: false,
            context: { idempotencyKey: key },
          },
        });
      }
      expect(moneyCase!.moved(other)).toBe(0);
      expect(provider.requests().length).toBe(requestsBefore);
    });
  });
});
