/**
 * The types of the adapter contract suite (docs/architecture.md#conformance-suite): what an adapter package supplies
 * and what a check is. They import nothing of the suite's own files, so every check file can use them.
 */
import type { AnyAdapter, CallOptions } from '../adapter.js';
import type { Operation } from '../operations.js';
import type { Pay } from '../pay.js';
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
