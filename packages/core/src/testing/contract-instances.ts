/**
 * The multi-instance checks of the conformance suite (docs/architecture.md#conformance-suite): several adapter
 * instances, each built and wrapped in its own `createPay` as separate processes would have them, share one
 * idempotency store and one simulator. They prove in-process what a deployment of several instances relies on:
 * the ledger lets one of them move the money, and a retry from any other instance finds, or resumes, that call.
 * Real processes, kills and store outages stay in tests/multi-instance.
 */
import { expect } from 'vitest';
import type { AnyAdapter } from '../adapter.js';
import { provesNothingMoved } from '../error-marks.js';
import { createPay, type Pay } from '../pay.js';
import { IdempotencyInProgressError } from '../store-errors.js';
import { createMemoryIdempotencyStore, type IdempotencyStore } from '../stores.js';
import { SUITE_SETTINGS } from './contract-run.js';
import type {
  AnySimulator,
  ContractCheck,
  MoneyMovingCall,
  SimulatorContext,
  SimulatorContract,
} from './contract-types.js';

/** How many instances race for one idempotency key. */
const INSTANCES = 4;

/** The lease every suite instance takes on a key, in seconds (the ledger's minimum). */
const LEASE_SECONDS = 5;

/** One idempotency store shared by every instance, on a clock the check can move past a lease. */
interface SharedLedger {
  store: IdempotencyStore;
  /** Moves the store's clock past the lease of every key: a dead process's lease has run out. */
  outliveLeases(): void;
}

/** A fresh shared ledger: an in-memory store whose clock starts at the real time. */
function sharedLedger(): SharedLedger {
  let offset = 0;
  return {
    store: createMemoryIdempotencyStore(() => Date.now() + offset),
    outliveLeases: () => {
      offset += (LEASE_SECONDS + 1) * 1000;
    },
  };
}

/**
 * `store` as a process that dies once its call is under way sees it: what it wrote before the money step
 * (the lease, checkpoints) stays, but nothing after it is written (no result, no release, no abandon, no renewal).
 */
function dyingView(store: IdempotencyStore): IdempotencyStore {
  const never = async () => true;
  return { ...store, complete: never, release: never, abandon: never, renew: never };
}

/** A new instance: a fresh adapter for `simulator` wrapped in its own `createPay` over `store`. */
function instanceOf<S extends AnySimulator, A extends AnyAdapter>(
  contract: SimulatorContract<S, A>,
  simulator: S,
  store: IdempotencyStore,
): SimulatorContext<S, A> {
  const adapter = contract.createAdapter(simulator, SUITE_SETTINGS);
  const pay: Pay<A> = createPay(adapter, { idempotency: store, idempotencyLeaseSeconds: LEASE_SECONDS });
  return { simulator, adapter, pay };
}

/** `value` as a retry gets it back from the ledger: its JSON (a recorded result is stored as JSON). */
const asRecorded = (value: unknown): unknown => JSON.parse(JSON.stringify(value ?? null));

/** Runs `body` against a fresh simulator and one shared ledger; stops the simulator after. */
async function withInstances<S extends AnySimulator, A extends AnyAdapter>(
  contract: SimulatorContract<S, A>,
  body: (simulator: S, ledger: SharedLedger) => Promise<void>,
): Promise<void> {
  const simulator = await contract.start();
  try {
    await body(simulator, sharedLedger());
  } finally {
    await simulator.close();
  }
}

/**
 * The same call with the same key from {@link INSTANCES} instances at once: one moves the money, the others are
 * told the key is in progress (or get its record), and a later retry from yet another instance returns the record
 * without calling the provider.
 */
async function raceOneKey<S extends AnySimulator, A extends AnyAdapter>(
  contract: SimulatorContract<S, A>,
  call: MoneyMovingCall<S, A>,
): Promise<void> {
  await withInstances(contract, async (simulator, ledger) => {
    const instances = Array.from({ length: INSTANCES }, () => instanceOf(contract, simulator, ledger.store));
    const [first] = instances as [SimulatorContext<S, A>];
    const prepared = await call.prepare?.(first);
    const movedBefore = call.moved(simulator);
    const options = { idempotencyKey: `conformance-race-${call.name}` };
    const settled = await Promise.allSettled(
      instances.map((instance) => call.send(instance, prepared, options)),
    );
    const records = settled.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
    const refused = settled.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []));
    expect(
      records.length,
      `${call.name}: instances that got a record (${refused.map(String).join('; ')})`,
    ).toBeGreaterThan(0);
    for (const error of refused)
      expect(
        IdempotencyInProgressError.isInstance(error),
        `${call.name}: an instance racing for the key failed with ${String(error)}`,
      ).toBe(true);
    const [record] = records.map(asRecorded);
    for (const other of records)
      expect(asRecorded(other), `${call.name}: the racing instances' records`).toEqual(record);
    expect(call.moved(simulator) - movedBefore, `${call.name}: times the money moved`).toBe(1);

    const requestsBefore = simulator.requests.length;
    const retry = instanceOf(contract, simulator, ledger.store);
    const again = await call.send(retry, prepared, options);
    expect(asRecorded(again), `${call.name}: the record a retry from another instance got`).toEqual(record);
    expect(simulator.requests.length - requestsBefore, `${call.name}: upstream calls made by the retry`).toBe(
      0,
    );
    expect(call.moved(simulator) - movedBefore, `${call.name}: times the money moved after the retry`).toBe(
      1,
    );
  });
}

/**
 * The instance making the call dies after the money step (the provider acted, its reply never arrived, nothing
 * more was written to the ledger); once its lease has run out, another instance retries with the key and resumes:
 * the money moved exactly once, and a refusal of the retry does not say nothing moved.
 */
async function resumeAfterDeath<S extends AnySimulator, A extends AnyAdapter>(
  contract: SimulatorContract<S, A>,
  call: MoneyMovingCall<S, A>,
): Promise<void> {
  await withInstances(contract, async (simulator, ledger) => {
    const dying = instanceOf(contract, simulator, dyingView(ledger.store));
    const prepared = await call.prepare?.(dying);
    const movedBefore = call.moved(simulator);
    const options = { idempotencyKey: `conformance-resume-${call.name}` };
    simulator.faults.inject({
      method: call.method.toUpperCase(),
      path: call.path,
      times: SUITE_SETTINGS.retry + 1,
      fault: { kind: 'drop-after' },
    });
    await call.send(dying, prepared, options).then(
      (value) => {
        throw new Error(`${call.name} resolved (${JSON.stringify(value)}) though its reply was lost`);
      },
      () => undefined,
    );
    simulator.faults.clear();
    expect(
      call.moved(simulator) - movedBefore,
      `${call.name}: times the money moved before the process died`,
    ).toBe(1);

    ledger.outliveLeases();
    const survivor = instanceOf(contract, simulator, ledger.store);
    const failure = await call.send(survivor, prepared, options).then(
      () => undefined,
      (error: unknown) => error,
    );
    if (failure !== undefined)
      expect(
        provesNothingMoved(failure),
        `${call.name}: the retry from another instance failed saying nothing moved: ${String(failure)}`,
      ).toBe(false);
    expect(
      call.moved(simulator) - movedBefore,
      `${call.name}: times the money moved once another instance retried`,
    ).toBe(1);
  });
}

/** The multi-instance checks of each money-moving call of `contract`. */
export function multiInstanceChecks<S extends AnySimulator, A extends AnyAdapter>(
  contract: SimulatorContract<S, A>,
): ContractCheck[] {
  return contract.moneyMovingCalls.flatMap((call) => [
    {
      name: `${call.name} sent at once by ${INSTANCES} instances sharing one idempotency store with one key: moves money once, the others are told the key is in progress, and a retry from another instance returns the record without a new request`,
      run: () => raceOneKey(contract, call),
    },
    {
      name: `${call.name} whose instance dies after the money step: another instance retrying with the key resumes, and the money moves exactly once`,
      run: () => resumeAfterDeath(contract, call),
    },
  ]);
}
