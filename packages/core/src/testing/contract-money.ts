/**
 * The money-safety checks of the adapter contract suite (docs/architecture.md#conformance-suite), run against the
 * adapter's own simulator through its whole `PaymentSimulator`: provider statuses, money-moving calls under
 * faults, amounts on the wire, reads of unknown ids, records, and credentials in errors. Each check is a function
 * that throws an assertion error naming what the adapter got wrong; `contract.ts` registers them with vitest or
 * runs them as findings.
 */
import { inspect } from 'node:util';
import { expect } from 'vitest';
import type { AnyAdapter, CallOptions } from '../adapter.js';
import { ProviderApiError, type ProviderErrorKind, ValidationError } from '../errors.js';
import type { Operation } from '../operations.js';
import type { Pay } from '../pay.js';
import { faultMatrixChecks } from './contract-faults.js';
import { multiInstanceChecks } from './contract-instances.js';
import { oracleChecks } from './contract-oracle.js';
import { callsTo, rejectionOf, unknownIdReads, withSimulator } from './contract-run.js';
import type { SimulatorDescriptor } from './kit/descriptor.js';
import type { Fault } from './kit/faults.js';
import type { RecordedRequest } from './kit/requests.js';
import type { PaymentSimulator } from './kit/simulator.js';

/** Any provider's simulator descriptor, as the suite reads its oracle. */
// biome-ignore lint/suspicious/noExplicitAny: a descriptor's config and books are the adapter's own types.
export type AnyDescriptor = SimulatorDescriptor<any, any>;

/** Any provider's simulator, as the suite drives it. */
// biome-ignore lint/suspicious/noExplicitAny: a simulator's config and books are the adapter's own types.
export type AnySimulator = PaymentSimulator<any, any>;

/** What each member of a {@link SimulatorContract} is handed: the running simulator, and an adapter for it. */
export interface SimulatorContext<S extends AnySimulator, A extends AnyAdapter> {
  simulator: S;
  adapter: A;
  /** `createPay(adapter)`: its idempotency ledger is in memory. */
  pay: Pay<A>;
}

/** Call settings the suite configures an adapter with (`retry`, `timeoutMs`: every adapter config has both). */
export interface SuiteCallSettings {
  /** Retries of a retry-safe call: the suite sets 2, so a money-moving call wrongly marked retry-safe is resent. */
  retry: number;
  /** Timeout of one attempt, in ms: the suite's delayed replies outlast it. */
  timeoutMs: number;
}

/** One money-moving call of the adapter and where it goes on the wire. */
export interface MoneyMovingCall<S extends AnySimulator, A extends AnyAdapter> {
  /** Names the call in the check's title, e.g. `'refunds.create'`. */
  name: string;
  /** The HTTP method and path of the upstream call that moves the money (a RegExp on the request's path). */
  method: string;
  path: RegExp;
  /**
   * Present when the provider itself makes a repeat of this call harmless, so the adapter may resend it after a
   * failure: the suite then checks that the money moved once instead of counting the requests.
   */
  resendable?: {
    /** Why a repeat cannot move money twice, e.g. `'the provider refuses a second capture'`. */
    because: string;
    /**
     * The request header by which the provider recognises a repeat (Provider T's `x-client-request-id` on a
     * commit): every resend must carry the first attempt's value.
     */
    sameHeader?: string;
  };
  /**
   * Present when the provider offers no way to learn whether this call landed when its answer never arrived
   * (Provider R's creations: no lookup by merchant reference). A repeat with the same idempotency key then never
   * sends it again: it fails with an error that does not say nothing moved, and the caller reconciles by hand.
   */
  noLookup?: {
    /** Why the adapter cannot find out, e.g. `'the provider has no lookup by merchant reference'`. */
    because: string;
  };
  /** Brings the simulator to where the call can be made (e.g. a paid payment to refund), without faults. */
  prepare?(context: SimulatorContext<S, A>): Promise<string | undefined>;
  /** Makes the call through `context.pay`, passing `options` (the idempotency key) on. */
  send(context: SimulatorContext<S, A>, prepared: string | undefined, options: CallOptions): Promise<unknown>;
  /** How many times the money moved in the simulator's books (payments opened, refunds made…). */
  moved(simulator: S): number;
  /**
   * What the provider's own documentation adds about a failure of this call at one of its upstream steps (the
   * step named in the error's `context`, the reference to reconcile with, which calls it retries): the fault
   * matrix calls it after each faulted attempt, and it throws when the error or the books say otherwise.
   */
  expectFailure?(failure: FaultedStep<S>): void | Promise<void>;
}

/** A money-moving call that failed under one fault of the suite's fault matrix, as `expectFailure` sees it. */
export interface FaultedStep<S extends AnySimulator> {
  /** Which upstream call of the operation was faulted (0-based, in the order the operation makes them). */
  step: number;
  /** Every attempt of the faulted call the simulator received (they share its request id). */
  attempts: readonly RecordedRequest[];
  /** Every request the failed operation sent, in order (`prepare`'s excluded). */
  sent: readonly RecordedRequest[];
  fault: Fault;
  /** What the operation rejected with. */
  error: unknown;
  /** The simulator, its books final (a delayed call has been handled). */
  simulator: S;
  /** What `prepare` returned. */
  prepared: string | undefined;
  /** The idempotency key the call was sent with (a provider reference derived from it is found from it). */
  idempotencyKey: string;
  /** The settings of the adapter that failed (a retried call was sent `settings.retry + 1` times). */
  settings: SuiteCallSettings;
}

/** One currency the adapter accepts, by its number of minor digits. */
export interface SupportedCurrency {
  currency: string;
  /** Minor digits (ISO 4217): 0, 2 or 3. */
  decimals: 0 | 2 | 3;
  /**
   * The smallest amount the provider takes (Provider R: 1.00 CZK). A test amount below it is raised by it, its
   * fraction kept (0.29 → 1.29), so the exactness check still runs where the provider would refuse the amount.
   */
  minimum?: number;
}

/** How the adapter sends amounts. */
export interface AmountContract<S extends AnySimulator, A extends AnyAdapter> {
  /** The provider's wire unit: `major` (`19.99`) or `minor` (`1999`). */
  unit: 'major' | 'minor';
  /**
   * The unit of `amount` in the adapter's records and events (docs/architecture.md#records): `unit` when absent.
   * The oracle checks read each record's amount in it and compare it with the books' minor units.
   */
  recordUnit?: 'major' | 'minor';
  /** Every currency the adapter takes (at least one), with its minor digits. */
  currencies: readonly SupportedCurrency[];
  /** Sends a money-moving call for `amount` of `currency` through `context.pay`. */
  send(context: SimulatorContext<S, A>, amount: number, currency: string): Promise<unknown>;
  /** The amount as it arrived in `request` (the last call to `path`): the JSON number or the form text. */
  path: RegExp;
  wireAmount(request: RecordedRequest): unknown;
}

/** How the adapter's provider names payment statuses, and how to make the simulator report each. */
export interface StatusContract<S extends AnySimulator, A extends AnyAdapter> {
  /** Statuses that mean paid: each must read `succeeded` (proves `read` reaches the mapping). */
  paid: readonly string[];
  /** Failure statuses (declined, abandoned, expired, reversed…): none may read as paid. */
  failed: readonly string[];
  /** Other documented statuses that are not paid (pending, processing…). The suite adds an undocumented one. */
  notPaid?: readonly string[];
  /**
   * Makes the simulator report a payment in provider status `status` (through its books, or a fault whose body
   * carries it) and returns what the adapter's status read resolved to (e.g. `pay.payments.retrieve(id)`).
   */
  read(context: SimulatorContext<S, A>, status: string): Promise<unknown>;
}

/** The end-to-end part of the contract, against the provider's simulator over loopback. */
export interface SimulatorContract<S extends AnySimulator = AnySimulator, A extends AnyAdapter = AnyAdapter> {
  /** Starts a fresh simulator (every check starts its own and closes it). */
  start(): Promise<S>;
  /** An adapter configured for `simulator` (`simulator.adapterConfig({ ...settings })`). */
  createAdapter(simulator: S, settings: SuiteCallSettings): A;
  /**
   * The package's simulator descriptor (`simulator` of its `./testing` entry), whose `oracle` gives the books,
   * statuses and wire in normalised form: the suite's oracle checks fail without it (docs/architecture.md#conformance-suite).
   */
  descriptor: Pick<AnyDescriptor, 'events' | 'oracle'>;
  /** The `webhookSecret` an app passes to `setup()` to verify what `simulator` signs (`null` for none). */
  webhookSecret(simulator: S): string | null;
  /**
   * The configuration overrides that make the adapter a live one (`{ isSandbox: false }`): its records must then
   * say `livemode: true`, and `false` without them.
   */
  liveSettings: Readonly<Record<string, unknown>>;
  /**
   * Present when the provider takes no merchant reference on its money calls (Provider T: a repeated commit is
   * recognised by its `x-client-request-id`): the suite then does not look for `keyedReference(key)` on the wire.
   */
  noReference?: { because: string };
  /** Every credential `adapterConfig()` carries (keys, secrets, passwords): none may appear in any error. */
  credentials(simulator: S): readonly string[];
  /**
   * Runs operations that resolve to records (create a payment, then retrieve it) and returns them: each must
   * name the adapter's provider and carry the provider's `request_id` of the call that produced it.
   */
  produceRecords(context: SimulatorContext<S, A>): Promise<unknown[]>;
  /** Makes the provider refuse a call; the returned promise must reject with a `ProviderApiError` with a kind. */
  refusedCall(context: SimulatorContext<S, A>): Promise<unknown>;
  statuses: StatusContract<S, A>;
  /** Every money-moving call the adapter makes (at least one). */
  moneyMovingCalls: readonly MoneyMovingCall<S, A>[];
  amounts: AmountContract<S, A>;
  /** For each read that may resolve `null` (`payments.retrieve`…) the adapter supports: an id the provider does not hold. */
  unknownIds: { readonly [operation in Operation]?: string };
}

/** One check: its title, and a function that throws when the adapter breaks the rule. */
export interface ContractCheck {
  name: string;
  run(): Promise<void>;
}

/** A status the suite makes up: no provider documents it, so no adapter may read it as paid. */
const UNDOCUMENTED_STATUS = 'CONFORMANCE_UNDOCUMENTED_STATUS';

/** The portable kinds of a provider refusal (`ProviderApiError.kind`). */
const PROVIDER_ERROR_KINDS = new Set<ProviderErrorKind>([
  'authentication',
  'invalid_request',
  'not_found',
  'conflict',
  'rate_limited',
  'provider_unavailable',
  'declined',
] satisfies ProviderErrorKind[]);

/** Amounts per minor digits: the classic float traps (`19.99 * 100`, `0.29 * 100`, `1.005 * 1000`). */
const EXACT_AMOUNTS: Readonly<Record<SupportedCurrency['decimals'], readonly number[]>> = {
  0: [500, 19],
  2: [19.99, 0.29, 1.01, 1234.56],
  3: [1.005, 0.29, 19.999],
};

/** An amount one digit finer than the currency allows: refused before any upstream call. */
const TOO_FINE: Readonly<Record<SupportedCurrency['decimals'], number>> = { 0: 19.5, 2: 1.005, 3: 1.0005 };

/** Every way an error can be shown: message, stack, JSON, and the whole inspected object with its causes. */
function renderingsOf(error: unknown): string {
  const json = (() => {
    try {
      return JSON.stringify(error);
    } catch {
      return '';
    }
  })();
  return [String(error), (error as Error | null)?.stack ?? '', json, inspect(error, { depth: 12 })].join(
    '\n',
  );
}

/**
 * The parts of `credential` that must not be shown: the whole value, and for a value of 16 characters or more
 * each half, since a message that shows a key cut short ("the key sk_test_4eC39Hq…") leaks most of it and no exact
 * redaction catches it.
 */
function revealingParts(credential: string): string[] {
  if (credential.length < 16) return credential.length > 0 ? [credential] : [];
  const half = Math.floor(credential.length / 2);
  return [credential, credential.slice(0, half), credential.slice(-half)];
}

/** Fails when `error` shows any of `credentials`, or half of one, anywhere. */
function expectNoCredential(error: unknown, credentials: readonly string[], where: string): void {
  const shown = renderingsOf(error);
  for (const [index, credential] of credentials.entries())
    for (const part of revealingParts(credential))
      if (shown.includes(part))
        throw new Error(
          `credentials[${index}] (or half of it) appears in the error of ${where}: ${String(error)}`,
        );
}

/** `value` written as a plain decimal, trailing fraction zeros dropped (`'19.990'` → `'19.99'`, `5` → `'5'`). */
function canonicalDecimal(value: unknown): string {
  const text = String(value);
  return text.includes('.') && !/e/i.test(text) ? text.replace(/\.?0+$/, '') : text;
}

/** The exact wire text of `amount` (a number in major units) in `unit`, moving the decimal point in the text. */
function expectedWire(amount: number, decimals: number, unit: 'major' | 'minor'): string {
  const [whole = '0', fraction = ''] = String(amount).split('.');
  if (unit === 'major') return canonicalDecimal(amount);
  return String(BigInt(whole + fraction.padEnd(decimals, '0')));
}

/** The money-safety checks of `contract` (docs/architecture.md#conformance-suite). */
export function moneySafetyChecks<S extends AnySimulator, A extends AnyAdapter>(
  contract: SimulatorContract<S, A>,
): ContractCheck[] {
  const checks: ContractCheck[] = [];
  const check = (name: string, run: () => Promise<void>) => checks.push({ name, run });
  const errorsSeen: { where: string; error: unknown }[] = [];
  const seen = (where: string, error: unknown) => {
    errorsSeen.push({ where, error });
    return error;
  };

  check(
    'returns records that name its provider and carry the request id of the call that produced them',
    () =>
      withSimulator(contract, async (context) => {
        const records = await contract.produceRecords(context);
        expect(records.length, 'records produced').toBeGreaterThan(0);
        for (const record of records) {
          const fields = (record ?? {}) as { provider?: unknown; request_id?: unknown };
          expect(fields.provider, `provider of ${JSON.stringify(record)}`).toBe(context.adapter.provider);
          expect(typeof fields.request_id, `request_id of ${JSON.stringify(record)}`).toBe('string');
          expect((fields.request_id as string).length).toBeGreaterThan(0);
        }
      }),
  );

  check('reports a refusal by the provider as a ProviderApiError with a portable kind', () =>
    withSimulator(contract, async (context) => {
      const error = seen(
        'a refused call',
        await rejectionOf(contract.refusedCall(context), 'the refused call'),
      );
      expect(ProviderApiError.isInstance(error), String(error)).toBe(true);
      expect(PROVIDER_ERROR_KINDS.has((error as ProviderApiError).kind), String(error)).toBe(true);
    }),
  );

  const { statuses } = contract;
  check(`reads each paid status (${statuses.paid.join(', ')}) as succeeded`, () =>
    withSimulator(contract, async (context) => {
      for (const status of statuses.paid) {
        const record = (await statuses.read(context, status)) as { status?: unknown } | null;
        expect(record?.status, `provider status ${status}`).toBe('succeeded');
      }
    }),
  );
  const notPaid = [...statuses.failed, ...(statuses.notPaid ?? []), UNDOCUMENTED_STATUS];
  check(`never reads a failure, pending or unknown status as paid (${notPaid.join(', ')})`, () =>
    withSimulator(contract, async (context) => {
      for (const status of notPaid) {
        const read = await statuses.read(context, status).then(
          (record) => ({ record }),
          (error: unknown) => ({ error: seen(`a read of status ${status}`, error) }),
        );
        // An unreadable status may be refused (InvalidResponseError); it must never resolve as money received.
        if (!('record' in read)) continue;
        const record = read.record as { status?: unknown; amount_paid?: unknown } | null;
        expect(record?.status, `provider status ${status} read as ${JSON.stringify(record)}`).not.toBe(
          'succeeded',
        );
        // A refunded or reversed payment may say what was paid before; a status nobody documents says nothing.
        if (status === UNDOCUMENTED_STATUS && typeof record?.amount_paid === 'number')
          expect(record.amount_paid, `amount_paid of provider status ${status}`).toBe(0);
      }
    }),
  );

  checks.push(...oracleChecks(contract as unknown as SimulatorContract));
  checks.push(...faultMatrixChecks(contract, seen));
  checks.push(...multiInstanceChecks(contract));

  const { amounts } = contract;
  for (const { currency, decimals, minimum = 0 } of amounts.currencies) {
    const values = EXACT_AMOUNTS[decimals].map((amount) =>
      amount < minimum ? Number((amount + minimum).toFixed(decimals)) : amount,
    );
    check(`sends ${values.join(', ')} ${currency} exactly, in ${amounts.unit} units`, () =>
      withSimulator(contract, async (context) => {
        for (const amount of values) {
          await amounts.send(context, amount, currency);
          const last = callsTo(context.simulator, 'POST', amounts.path).at(-1);
          expect(last, `no call to ${amounts.path} for ${amount} ${currency}`).toBeDefined();
          const wire = amounts.wireAmount(last as RecordedRequest);
          expect(canonicalDecimal(wire), `${amount} ${currency} on the wire`).toBe(
            expectedWire(amount, decimals, amounts.unit),
          );
        }
      }),
    );
    const fine = TOO_FINE[decimals];
    check(`refuses ${fine} ${currency} (finer than ${decimals} decimals) before any upstream call`, () =>
      withSimulator(contract, async (context) => {
        const before = context.simulator.requests.length;
        const error = await rejectionOf(amounts.send(context, fine, currency), `${fine} ${currency}`);
        expect(ValidationError.isInstance(error), String(error)).toBe(true);
        expect(context.simulator.requests.length - before, 'upstream calls made').toBe(0);
      }),
    );
  }

  check('resolves a read of an id the provider does not hold to null', () =>
    withSimulator(contract, async ({ adapter }) => {
      for (const { operation, id, read } of unknownIdReads(contract as SimulatorContract, adapter)) {
        const result = await read(adapter).catch((error: unknown) =>
          seen(`${operation} of an unknown id`, error),
        );
        expect(result, `${operation}('${id}')`).toBeNull();
      }
    }),
  );

  check('puts no credential in any error (refusals, faults, a refused login or key)', async () => {
    await withSimulator(contract, async (context) => {
      const [call] = contract.moneyMovingCalls;
      if (!call) throw new Error('SimulatorContract.moneyMovingCalls lists no call');
      const prepared = await call.prepare?.(context);
      context.simulator.faults.inject({
        path: /./,
        times: 20,
        fault: { kind: 'status', status: 401, body: JSON.stringify({ error: 'invalid credentials' }) },
      });
      seen(
        'a call answered 401',
        await rejectionOf(call.send(context, prepared, {}), `${call.name} answered 401`),
      );
      context.simulator.faults.clear();
      seen('a refused call', await rejectionOf(contract.refusedCall(context), 'the refused call'));
      const credentials = contract.credentials(context.simulator);
      expect(credentials.length, 'SimulatorContract.credentials').toBeGreaterThan(0);
      for (const { where, error } of errorsSeen) expectNoCredential(error, credentials, where);
    });
  });

  return checks;
}
