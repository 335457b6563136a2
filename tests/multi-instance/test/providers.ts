/**
 * Each provider's simulator, started in the test process, with what the instances need to talk to it and how to
 * read its books: how many times money moved for a request, and how many requests reached it.
 */
import { startProviderNSimulator } from '@pay/provider-n/testing';
import { startProviderRSimulator } from '@pay/provider-r/testing';
import { startProviderTSimulator } from '@pay/provider-t/testing';
import {
  providerNCheckoutInput,
  providerRPaymentInput,
  transferCheckoutInput,
  transferInput,
} from './fixtures.js';
import type { Instance, InstanceConfig } from './instances.js';

/** One money-moving operation of a provider, and where the simulator books what it moved. */
export interface MoneyCase {
  /** e.g. `payments.create`. */
  operation: string;
  /**
   * The arguments (without the call options) of call number `index`, made unique by `index` so the books tell
   * calls apart; may prepare the provider first (a paid payment to refund), through `creator`.
   */
  prepare(index: number, creator: Instance): Promise<unknown[]>;
  /** How many times the simulator moved money for the call made with `args` (0 or 1 when all is well). */
  moved(args: unknown[]): number;
  /**
   * What the returned record must show for `args` once money moved (its id as the books hold it, or the payment
   * and amount of a refund), for `toMatchObject`.
   */
  expectedRecord(args: unknown[]): Record<string, unknown>;
}

/** A running simulator and the money-moving operations tested against it. */
export interface ProviderUnderTest {
  provider: InstanceConfig['provider'];
  adapter: object;
  /** Every request the simulator received so far (faulted ones included), in order. */
  requests(): readonly { method: string; path: string }[];
  /** The simulator's fault injection (core's `FaultInjector`). */
  faults: {
    inject(rule: {
      method?: string;
      path: string | RegExp;
      times?: number;
      fault: { kind: 'delay'; ms: number };
    }): void;
  };
  cases: MoneyCase[];
  close(): Promise<void>;
}

/** Distinct amounts per call (the currency's standard unit, every provider), so each call's money is found in the books. */
const amountOf = (base: number, index: number) => base + index;

/** Provider T: transfers (payments and checkouts) and whole-transfer refunds. */
export async function providerT(): Promise<
  ProviderUnderTest & { sim: Awaited<ReturnType<typeof startProviderTSimulator>> }
> {
  const sim = await startProviderTSimulator();
  const committedFor = (amount: number) =>
    sim.transfers.filter((transfer) => transfer.committed && transfer.sendAmount.value === amount);
  const transferCase = (operation: string, base: number): MoneyCase => ({
    operation,
    async prepare(index) {
      const amount = amountOf(base, index);
      return [
        operation === 'payments.create'
          ? transferInput(`order-${base}-${index}`, amount)
          : transferCheckoutInput(`order-${base}-${index}`, amount),
      ];
    },
    moved: (args) => committedFor(amountOfArgs(args)).length,
    expectedRecord: (args) => ({ id: committedFor(amountOfArgs(args))[0]?.transactionId }),
  });
  return {
    sim,
    provider: 't',
    adapter: sim.adapterConfig({ retry: 1 }),
    requests: () => sim.requests,
    faults: sim.faults,
    cases: [
      transferCase('payments.create', 101),
      transferCase('checkouts.create', 201),
      {
        operation: 'refunds.create',
        async prepare(index, creator) {
          const paid = await creator.call(
            'payments.create',
            transferInput(`refund-${index}`, amountOf(301, index)),
          );
          if (!paid.ok) throw new Error(`payments.create failed: ${JSON.stringify(paid.error)}`);
          return [{ payment_id: paid.value.id }];
        },
        moved: (args) => sim.refunds.filter((refund) => refund.transactionId === paymentIdOf(args)).length,
        expectedRecord: (args) => ({ payment_id: paymentIdOf(args) }),
      },
    ],
    close: () => sim.close(),
  };
}

/** Provider N: checkouts (a transaction opened under a reference) and refunds. */
export async function providerN(): Promise<ProviderUnderTest> {
  const sim = await startProviderNSimulator();
  const openedFor = (amount: number) =>
    sim.books.transactions.filter((transaction) => transaction.amount === amount);
  return {
    provider: 'n',
    adapter: sim.adapterConfig({ retry: 1 }),
    requests: () => sim.books.requests,
    faults: sim.faults,
    cases: [
      {
        operation: 'checkouts.create',
        async prepare(index) {
          return [providerNCheckoutInput(`order-n-${index}`, amountOf(5101, index))];
        },
        moved: (args) => openedFor(nAmountOfArgs(args)).length,
        expectedRecord: (args) => ({ id: openedFor(nAmountOfArgs(args))[0]?.transactionReference }),
      },
      {
        operation: 'refunds.create',
        async prepare(index, creator) {
          const opened = await creator.call(
            'checkouts.create',
            providerNCheckoutInput(`refund-n-${index}`, 6000),
          );
          if (!opened.ok) throw new Error(`checkouts.create failed: ${JSON.stringify(opened.error)}`);
          sim.complete(opened.value.id);
          return [{ payment_id: opened.value.id, amount: amountOf(1001, index) }];
        },
        moved: (args) =>
          sim.books.refunds.filter((refund) => refund.transactionReference === paymentIdOf(args)).length,
        expectedRecord: (args) => ({ payment_id: paymentIdOf(args), amount: refundAmountOf(args) }),
      },
    ],
    close: () => sim.close(),
  };
}

/** Provider R: payments (no upstream idempotency: the ledger alone) and refunds. */
export async function providerR(): Promise<ProviderUnderTest> {
  const sim = await startProviderRSimulator();
  const paymentsFor = (payerId: string) =>
    sim.transactions.filter(
      (transaction) => transaction.kind === 'payment' && transaction.payerId === payerId,
    );
  return {
    provider: 'r',
    adapter: sim.adapterConfig({ retry: 1 }),
    requests: () => sim.requests,
    faults: sim.faults,
    cases: [
      {
        operation: 'payments.create',
        async prepare(index) {
          return [providerRPaymentInput(`r-${index}`, amountOf(100, index))];
        },
        moved: (args) => paymentsFor(payerIdOfArgs(args)).length,
        expectedRecord: (args) => ({ id: paymentsFor(payerIdOfArgs(args))[0]?.transId }),
      },
      {
        operation: 'refunds.create',
        async prepare(index, creator) {
          const paid = await creator.call('payments.create', providerRPaymentInput(`refund-r-${index}`, 200));
          if (!paid.ok) throw new Error(`payments.create failed: ${JSON.stringify(paid.error)}`);
          sim.pay(paid.value.id);
          return [{ payment_id: paid.value.id, amount: amountOf(10, index) }];
        },
        moved: (args) => sim.refunds.filter((refund) => refund.transId === paymentIdOf(args)).length,
        expectedRecord: (args) => ({ payment_id: paymentIdOf(args), amount: refundAmountOf(args) }),
      },
    ],
    close: () => sim.close(),
  };
}

function amountOfArgs(args: unknown[]): number {
  const input = args[0] as { amount?: number; provider_metadata: { amount?: number } };
  return (input.amount ?? input.provider_metadata.amount) as number;
}

function nAmountOfArgs(args: unknown[]): number {
  return (args[0] as { provider_metadata: { amount: number } }).provider_metadata.amount;
}

function payerIdOfArgs(args: unknown[]): string {
  return (args[0] as { customer: { id: string } }).customer.id;
}

function paymentIdOf(args: unknown[]): string {
  return (args[0] as { payment_id: string }).payment_id;
}

function refundAmountOf(args: unknown[]): number {
  return (args[0] as { amount: number }).amount;
}
