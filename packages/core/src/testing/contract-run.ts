/**
 * What every simulator check of the conformance suite (docs/architecture.md#conformance-suite) runs on: the
 * settings of the suite's adapters, a fresh simulator per check, readings of the simulator's request log, and
 * the reads of ids the provider does not hold.
 */
import { expect } from 'vitest';
import type { AnyAdapter } from '../adapter.js';
import { OPERATION_NAMES, OPERATIONS, type Operation } from '../operations.js';
import { createPay } from '../pay.js';
import type {
  AnySimulator,
  SimulatorContext,
  SimulatorContract,
  SuiteCallSettings,
} from './contract-types.js';
import type { RecordedRequest } from './kit/requests.js';

/**
 * The settings of every suite adapter: retries on, so a retry-safe money call shows up more than once. The timeout
 * is what the timeout faults wait out; it is long enough that an unfaulted call to a simulator on loopback never
 * meets it on a loaded two-core machine (at 400 ms, unfaulted steps timed out while other suites ran).
 */
export const SUITE_SETTINGS: SuiteCallSettings = { retry: 2, timeoutMs: 1_000 };

/** The rejection of `promise`, or fails when it resolves. */
export async function rejectionOf(promise: Promise<unknown>, what: string): Promise<unknown> {
  const settled = await promise.then(
    (value) => ({ resolved: true as const, value }),
    (error: unknown) => ({ resolved: false as const, error }),
  );
  if (settled.resolved)
    throw new Error(`${what} resolved (${JSON.stringify(settled.value)}) instead of failing`);
  return settled.error;
}

/** Runs `body` against a fresh simulator, with a suite adapter and a `Pay` for it; stops the simulator after. */
export async function withSimulator<S extends AnySimulator, A extends AnyAdapter, T = void>(
  contract: SimulatorContract<S, A>,
  body: (context: SimulatorContext<S, A>) => Promise<T>,
): Promise<T> {
  const simulator = await contract.start();
  try {
    const adapter = contract.createAdapter(simulator, SUITE_SETTINGS);
    const pay = createPay(adapter);
    return await body({ simulator, adapter, pay });
  } finally {
    await simulator.close();
  }
}

/** The requests the simulator received for `method` and `path`. */
export function callsTo(simulator: AnySimulator, method: string, path: RegExp): RecordedRequest[] {
  return simulator.requests.filter(
    (request) => request.method === method.toUpperCase() && path.test(request.path),
  );
}

/** A read that may resolve `null`, and the id the provider does not hold the contract gives for it. */
export interface UnknownIdRead {
  operation: Operation;
  id: string;
  /** Calls the read on `adapter`. */
  read(adapter: AnyAdapter): Promise<unknown>;
}

/** Each read `adapter` supports that may resolve `null`, with its unknown id (failing when the contract has none). */
export function unknownIdReads(contract: SimulatorContract, adapter: AnyAdapter): UnknownIdRead[] {
  return OPERATION_NAMES.filter(
    (operation) => OPERATIONS[operation].orNull && adapter.capabilities.includes(operation),
  ).map((operation) => {
    const id = contract.unknownIds[operation];
    expect(id, `SimulatorContract.unknownIds['${operation}']`).toBeTypeOf('string');
    const method = OPERATIONS[operation].method;
    return {
      operation,
      id: id as string,
      read: (reader) => (reader[method] as (id: string) => Promise<unknown>)(id as string),
    };
  });
}
