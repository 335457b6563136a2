/**
 * The fault matrix of the conformance suite (docs/architecture.md#conformance-suite): every money-moving call the
 * adapter supports, faulted at each upstream step it makes, under each fault the simulator kit injects; and every
 * read that may resolve `null`, faulted once at each of its steps. The steps are not listed anywhere: the suite
 * runs the call twice without faults and reads them off the simulator's request log, so a new adapter gets the
 * whole matrix from its `SimulatorContract` alone.
 */
import { expect } from 'vitest';
import type { AnyAdapter, CallOptions } from '../adapter.js';
import { provesNothingMoved } from '../error-marks.js';
import { InvalidResponseError, NetworkError, ProviderApiError } from '../errors.js';
import { OPERATIONS, type Operation } from '../operations.js';
import {
  rejectionOf,
  SUITE_SETTINGS,
  type UnknownIdRead,
  unknownIdReads,
  withSimulator,
} from './contract-run.js';
import type {
  AnySimulator,
  ContractCheck,
  MoneyMovingCall,
  SimulatorContext,
  SimulatorContract,
} from './contract-types.js';
import type { Fault } from './kit/faults.js';
import type { RecordedRequest } from './kit/requests.js';

/** How long a delayed reply waits: longer than the suite adapters' attempt timeout. */
const DELAY_MS = SUITE_SETTINGS.timeoutMs + 600;

/** One fault the kit injects, and what it does to the provider's books and to the caller. */
interface MatrixFault {
  /** As check titles name it. */
  name: string;
  fault: Fault;
  /** Whether the simulator handles the call (its books change) although the client gets no usable reply. */
  handled: boolean;
  /** The documented error class (docs/architecture.md#errors) a call failing under it must reject with. */
  error: 'ProviderApiError' | 'NetworkError' | 'InvalidResponseError';
}

/** Every fault of the simulator kit (`Fault`), as the matrix injects it. */
const MATRIX_FAULTS: readonly MatrixFault[] = [
  {
    name: 'a reply lost after the provider acted',
    fault: { kind: 'drop-after' },
    handled: true,
    error: 'NetworkError',
  },
  {
    name: 'a connection closed before the provider acted',
    fault: { kind: 'drop' },
    handled: false,
    error: 'NetworkError',
  },
  { name: 'HTTP 500', fault: { kind: 'status', status: 500 }, handled: false, error: 'ProviderApiError' },
  { name: 'HTTP 503', fault: { kind: 'status', status: 503 }, handled: false, error: 'ProviderApiError' },
  { name: 'a timeout', fault: { kind: 'delay', ms: DELAY_MS }, handled: true, error: 'NetworkError' },
  {
    name: 'a truncated reply',
    fault: { kind: 'malformed' },
    handled: true,
    error: 'InvalidResponseError',
  },
];

/** The faults a read is retried through: those that leave the reply unknown or say "try again". */
const TRANSIENT_FAULTS = MATRIX_FAULTS.filter(({ error }) => error !== 'InvalidResponseError');

const IS_ERROR_CLASS: Readonly<Record<MatrixFault['error'], (error: unknown) => boolean>> = {
  ProviderApiError: (error) => ProviderApiError.isInstance(error),
  NetworkError: (error) => NetworkError.isInstance(error),
  InvalidResponseError: (error) => InvalidResponseError.isInstance(error),
};

/** One upstream call an operation makes, as read off the request log of two fault-free runs. */
interface UpstreamStep {
  /** Its position among the operation's calls (0-based). */
  index: number;
  method: string;
  /** Its path, with the segments that differed between the two runs (ids the provider made up) as wildcards. */
  path: RegExp;
  /** How many earlier steps of the operation this method and path also match. */
  earlier: number;
  /** The path as the first run sent it. */
  sample: string;
  /** `POST /v1/refunds` for messages. */
  label: string;
}

/** What the matrix runs: an operation, and what must hold before it (a paid payment to refund…). */
interface Scenario<S extends AnySimulator, A extends AnyAdapter> {
  prepare(context: SimulatorContext<S, A>): Promise<unknown>;
  run(context: SimulatorContext<S, A>, prepared: unknown): Promise<unknown>;
}

/** `text` as a RegExp source that matches it literally. */
const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A path pattern matching `paths` (one per run): equal segments literally, differing ones as any segment. */
function pathPattern(paths: readonly string[]): RegExp {
  const [first = ''] = paths;
  const split = paths.map((path) => path.split('/'));
  const segments = first
    .split('/')
    .map((segment, index) => (split.every((parts) => parts[index] === segment) ? escaped(segment) : '[^/]+'));
  return new RegExp(`^${segments.join('/')}$`);
}

/**
 * The upstream steps of `scenario`: it runs twice, fault-free, each time on a fresh simulator, and the requests
 * it sent are its steps. Fails when the two runs sent different calls.
 */
async function stepsOf<S extends AnySimulator, A extends AnyAdapter>(
  contract: SimulatorContract<S, A>,
  scenario: Scenario<S, A>,
  what: string,
): Promise<UpstreamStep[]> {
  const run = () =>
    withSimulator(contract, async (context) => {
      const prepared = await scenario.prepare(context);
      const before = context.simulator.requests.length;
      await scenario.run(context, prepared);
      return context.simulator.requests.slice(before);
    });
  const runs: RecordedRequest[][] = [await run(), await run()];
  const [first = [], second = []] = runs;
  expect(
    second.map(({ method }) => method),
    `the upstream calls of ${what} in two fault-free runs`,
  ).toEqual(first.map(({ method }) => method));
  expect(first.length, `upstream calls made by ${what}`).toBeGreaterThan(0);
  return first.map((request, index) => {
    const path = pathPattern(runs.map((requests) => requests[index]?.path ?? ''));
    const earlier = first
      .slice(0, index)
      .filter((other) => other.method === request.method && path.test(other.path)).length;
    return {
      index,
      method: request.method,
      path,
      earlier,
      sample: request.path,
      label: `${request.method} ${path.source}`,
    };
  });
}

/**
 * Arms `fault` for `times` attempts of `step`, letting the earlier steps with the same method and path through
 * first (a fault of no effect on each).
 */
function armAt(simulator: AnySimulator, step: UpstreamStep, fault: Fault, times: number): void {
  const { method, path } = step;
  if (step.earlier > 0)
    simulator.faults.inject({ method, path, times: step.earlier, fault: { kind: 'delay', ms: 0 } });
  simulator.faults.inject({ method, path, times, fault });
}

/** The attempts of the call the operation sent as `step` (they share its request id). */
function attemptsOf(sent: readonly RecordedRequest[], step: UpstreamStep): RecordedRequest[] {
  const first = sent[step.index];
  if (!first) return [];
  return sent.filter(
    (request) =>
      request.requestId === first.requestId &&
      request.method === first.method &&
      step.path.test(request.path),
  );
}

/** `error` and its `cause` chain (bounded). */
function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let current = error; current !== undefined && current !== null && chain.length < 10; ) {
    chain.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

/** Whether `error` (or an error it wraps) names the upstream call with `requestId`, as its own or in `context`. */
function namesCall(error: unknown, requestId: string): boolean {
  return causeChain(error).some((link) => {
    const fields = link as { requestId?: unknown; context?: { requestId?: unknown } };
    return fields.requestId === requestId || fields.context?.requestId === requestId;
  });
}

/** What a check does with each error an operation raised (the credential check reads them all at the end). */
type Seen = (where: string, error: unknown) => unknown;

/** The idempotency key every run of `call` uses: the same in the fault-free runs and the faulted one. */
const keyOf = (call: { name: string }): CallOptions => ({ idempotencyKey: `conformance-${call.name}` });

/** Whether `request` is a call to one of `steps`. */
const isOneOf = (request: RecordedRequest, steps: readonly UpstreamStep[]) =>
  steps.some((step) => step.method === request.method && step.path.test(request.path));

/**
 * What the first, faulted attempt of a money-moving call must show: the documented error class naming the call it
 * reached, the operation stopped there, and the money moved as far as the provider acted.
 */
function expectFailedAt<S extends AnySimulator, A extends AnyAdapter>(
  call: MoneyMovingCall<S, A>,
  steps: readonly UpstreamStep[],
  step: UpstreamStep,
  moneyStep: number,
  matrix: MatrixFault,
  failure: { error: unknown; sent: readonly RecordedRequest[]; moved: number; where: string },
): void {
  const { error, sent, moved, where } = failure;
  const attempts = attemptsOf(sent, step);
  const requestId = attempts[0]?.requestId ?? '';
  expect(attempts.length, `attempts of ${where}`).toBeGreaterThan(0);
  expect(
    IS_ERROR_CLASS[matrix.error](error),
    `${where}: expected a ${matrix.error}, got ${String(error)}`,
  ).toBe(true);
  if (matrix.fault.kind === 'status')
    expect(error, `${where}: the HTTP status and request id of the error`).toMatchObject({
      status: matrix.fault.status,
      requestId,
    });
  if (matrix.error === 'NetworkError')
    expect(namesCall(error, requestId), `${where}: the error names the call it reached (${requestId})`).toBe(
      true,
    );
  if (matrix.fault.kind === 'delay')
    expect(
      causeChain(error).some((link) => /timed out/.test((link as Error).message)),
      `${where}: the error (or its cause) says the call timed out: ${String(error)}`,
    ).toBe(true);

  // The operation stopped at the failed step: nothing after it was sent but a re-read of an earlier step's kind.
  const later = sent.slice(step.index).filter((request) => !isOneOf(request, steps.slice(0, step.index + 1)));
  expect(
    later.map((request) => `${request.method} ${request.path}`),
    `${where}: calls sent after the failed step`,
  ).toEqual([]);
  // One request id per logical call: each id names one method and path.
  const callOf = new Map<string, string>();
  for (const request of sent) {
    const named = `${request.method} ${request.path}`;
    expect(
      callOf.get(request.requestId) ?? named,
      `${where}: the calls sharing request id ${request.requestId}`,
    ).toBe(named);
    callOf.set(request.requestId, named);
  }

  const landed = step.index < moneyStep ? 0 : step.index > moneyStep || matrix.handled ? 1 : 0;
  expect(moved, `${where}: times the money moved`).toBe(landed);
  if (step.index !== moneyStep) return;
  // The caller cannot tell whether the money call landed: the error must neither say it did not nor invite a resend.
  expect(provesNothingMoved(error), `${where}: the error says nothing moved: ${String(error)}`).toBe(false);
  if (ProviderApiError.isInstance(error)) expect(error.retryable, `${where}: retryable`).toBe(false);
  const header = call.resendable?.sameHeader?.toLowerCase();
  if (!call.resendable) expect(attempts.length, `${where}: requests sent`).toBe(1);
  else if (header)
    expect(
      [...new Set(attempts.map((request) => request.headers[header]))],
      `${where}: ${header} values`,
    ).toEqual([expect.stringMatching(/./)]);
}

/**
 * One money-moving call under `fault` at `step`, then repeated with its idempotency key: every rule of the
 * matrix, each failing with a message that names the call, the step and the fault.
 */
async function faultMoneyStep<S extends AnySimulator, A extends AnyAdapter>(
  contract: SimulatorContract<S, A>,
  call: MoneyMovingCall<S, A>,
  steps: readonly UpstreamStep[],
  step: UpstreamStep,
  moneyStep: number,
  matrix: MatrixFault,
  seen: Seen,
): Promise<void> {
  const where = `${call.name}, step ${step.index + 1} (${step.label}) under ${matrix.name}`;
  await withSimulator(contract, async (context) => {
    const { simulator } = context;
    const prepared = await call.prepare?.(context);
    const movedBefore = call.moved(simulator);
    const before = simulator.requests.length;
    armAt(simulator, step, matrix.fault, SUITE_SETTINGS.retry + 1);
    const error = seen(where, await rejectionOf(call.send(context, prepared, keyOf(call)), where));
    simulator.faults.clear();
    // A delayed call is still handled after the client gave up: the books are final once it has been.
    await simulator.faults.settled();
    const sent = simulator.requests.slice(before);
    const moved = call.moved(simulator) - movedBefore;
    expectFailedAt(call, steps, step, moneyStep, matrix, { error, sent, moved, where });
    await call.expectFailure?.({
      step: step.index,
      attempts: attemptsOf(sent, step),
      sent,
      fault: matrix.fault,
      error,
      simulator,
      prepared,
      idempotencyKey: keyOf(call).idempotencyKey as string,
      settings: SUITE_SETTINGS,
    });

    // The repeat with the same key resumes where the first attempt stopped: the money moves exactly once, and a
    // refusal of the repeat (the provider already holds what the lost reply hid) does not say nothing moved. Where
    // the provider cannot be asked whether an unanswered money call landed (`noLookup`), the repeat sends it no
    // more and fails saying so.
    const repeatFrom = simulator.requests.length;
    const again = await call.send(context, prepared, keyOf(call)).then(
      () => undefined,
      (thrown: unknown) => seen(`${where}, repeated with its idempotency key`, thrown),
    );
    if (again !== undefined)
      expect(
        provesNothingMoved(again),
        `${where}: the repeat with the idempotency key failed saying nothing moved: ${String(again)}`,
      ).toBe(false);
    const unanswered = call.noLookup !== undefined && step.index === moneyStep && moved === 0;
    if (unanswered) {
      expect(again, `${where}: the repeat resolved, though ${call.noLookup?.because}`).toBeDefined();
      const resent = simulator.requests
        .slice(repeatFrom)
        .filter((request) => request.method === call.method.toUpperCase() && call.path.test(request.path));
      expect(resent.length, `${where}: the repeat sent ${call.method} ${call.path} again`).toBe(0);
    }
    expect(call.moved(simulator) - movedBefore, `${where}: times the money moved once repeated`).toBe(
      unanswered ? 0 : 1,
    );
  });
}

/** One read of an unknown id under one `fault` at `step`: retried with the same request id, still `null`. */
async function faultReadStep<S extends AnySimulator, A extends AnyAdapter>(
  contract: SimulatorContract<S, A>,
  operation: Operation,
  id: string,
  read: UnknownIdRead['read'],
  step: UpstreamStep,
  matrix: MatrixFault,
  seen: Seen,
): Promise<void> {
  const where = `${operation}('${id}'), step ${step.index + 1} (${step.label}) with one attempt meeting ${matrix.name}`;
  await withSimulator(contract, async ({ simulator, adapter }) => {
    const before = simulator.requests.length;
    armAt(simulator, step, matrix.fault, 1);
    const result = await read(adapter).catch((error: unknown) => seen(where, error));
    expect(result, where).toBeNull();
    const attempts = attemptsOf(simulator.requests.slice(before), step);
    expect(attempts.length, `${where}: attempts sent with one request id`).toBe(2);
  });
}

/**
 * Runs `run` for each step, all at once, each on its own simulator as always: such a run spends its time waiting
 * out the client's timeouts and backoffs, not computing, so waiting them out together costs the machine little
 * more. Fails with the first step's failure once every run has ended.
 */
async function eachStep(
  steps: readonly UpstreamStep[],
  run: (step: UpstreamStep) => Promise<void>,
): Promise<void> {
  const failed = (await Promise.allSettled(steps.map(run))).find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
}

/** The fault matrix of `contract` (docs/architecture.md#conformance-suite). */
export function faultMatrixChecks<S extends AnySimulator, A extends AnyAdapter>(
  contract: SimulatorContract<S, A>,
  seen: Seen,
): ContractCheck[] {
  const checks: ContractCheck[] = [];
  const check = (name: string, run: () => Promise<void>) => checks.push({ name, run });
  // Each call's steps, read off once for all its faults: the two fault-free runs already prove they do not change.
  const readOff = new Map<string, Promise<UpstreamStep[]>>();
  const stepsOnce = (scenario: Scenario<S, A>, what: string) => {
    const steps = readOff.get(what) ?? stepsOf(contract, scenario, what);
    readOff.set(what, steps);
    return steps;
  };

  check('declares each money-moving operation it supports as a money-moving call', () =>
    withSimulator(contract, async ({ adapter }) => {
      const supported = adapter.capabilities.filter((operation) => OPERATIONS[operation].movesMoney);
      const declared = new Set(contract.moneyMovingCalls.map(({ name }) => name));
      expect(
        supported.filter((operation) => !declared.has(operation)),
        'money-moving operations missing from SimulatorContract.moneyMovingCalls',
      ).toEqual([]);
    }),
  );

  for (const call of contract.moneyMovingCalls) {
    const scenario: Scenario<S, A> = {
      prepare: async (context) => call.prepare?.(context),
      run: (context, prepared) => call.send(context, prepared as string | undefined, keyOf(call)),
    };
    for (const matrix of MATRIX_FAULTS) {
      check(
        `${call.name} under ${matrix.name} at each upstream step: moves money at most once, fails with a ${matrix.error} naming the step, and a repeat with its idempotency key resumes and moves it exactly once`,
        async () => {
          const steps = await stepsOnce(scenario, call.name);
          const moneyStep = steps.findIndex(
            (step) => step.method === call.method.toUpperCase() && call.path.test(step.sample),
          );
          expect(
            moneyStep,
            `the steps of ${call.name} (${steps.map((step) => step.label).join(', ')}) include ${call.method} ${call.path}`,
          ).toBeGreaterThanOrEqual(0);
          await eachStep(steps, (step) =>
            faultMoneyStep(contract, call, steps, step, moneyStep, matrix, seen),
          );
        },
      );
    }
  }

  for (const matrix of TRANSIENT_FAULTS) {
    check(
      `retries each read of an id the provider does not hold when one attempt meets ${matrix.name}, at each upstream step, and resolves null`,
      () =>
        withSimulator(contract, async ({ adapter }) => {
          for (const { operation, id, read } of unknownIdReads(contract as SimulatorContract, adapter)) {
            const scenario: Scenario<S, A> = {
              prepare: async () => undefined,
              run: ({ adapter: fresh }) => read(fresh),
            };
            await eachStep(await stepsOnce(scenario, `${operation}('${id}')`), (step) =>
              faultReadStep(contract, operation, id, read, step, matrix, seen),
            );
          }
        }),
    );
  }
  return checks;
}
