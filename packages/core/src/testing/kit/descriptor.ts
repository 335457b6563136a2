/**
 * What an adapter package tells the `pay` command about its simulator (docs/architecture.md#simulator-descriptor):
 * the package's `./testing` entry exports it as `simulator`, and `pay dev <package>` / `pay trigger <package>` find
 * it there, so the command lists no provider and any package can be served.
 */
import type { EnvVariable } from '../../config.js';
import type { RecordedRequest } from './requests.js';
import type { PaymentSimulator, SimulatorStartOptions } from './simulator.js';

/**
 * A webhook signing key `pay dev` keeps between runs, in a 0600 file of its state directory: for a provider whose
 * app verifies with the public half the simulator prints, a key made anew at each start would fail every delivery
 * to an app configured from an earlier run.
 */
export interface KeptSigningKey {
  /** The file name in `pay dev`'s state directory (`provider-t-webhook-key.pem`). */
  readonly file: string;
  /** The key type, as Node names it (`rsa`): a kept file holding another is refused. */
  readonly type: string;
  /** Makes a new private key, as PKCS#8 PEM (what the file keeps). */
  generate(): string;
}

/** One object in a simulator's books, as `pay dev`'s event log lists it. */
export interface SimulatedObject {
  /** What it is, in the payments domain: `payment`, `checkout`, `refund`, `transfer`. */
  readonly kind: string;
  /** The provider's id of it, as its webhooks and the adapter's reads carry it. */
  readonly id: string;
  /** Its status in the provider's own words (`PAID`, `IN_PROGRESS`). */
  readonly status: string;
}

/** What a status means for the money (docs/architecture.md#conformance-suite): the suite's oracle vocabulary. */
export type MoneyMeaning = 'paid' | 'failed' | 'pending' | 'refunded';

/**
 * One payment or refund in a simulator's books, normalised: the conformance suite compares every record and event
 * an adapter produces with it, so the comparison is the same for every provider.
 */
export interface LedgerEntry {
  readonly kind: 'payment' | 'refund';
  /** The provider's id, as the adapter's records and events carry it (`Payment.id`, `Refund.id`). */
  readonly id: string;
  /** The amount asked (payment) or refunded, in integer minor units of `currency`. */
  readonly amountMinor: number;
  /** ISO 4217, upper case. */
  readonly currency: string;
  /** The provider's own word for its status. */
  readonly status: string;
  /** What that status means for the money. */
  readonly meaning: MoneyMeaning;
}

/** The money a money-moving request carried, decoded from the bytes the simulator received. */
export interface WireMoney {
  /** Which entry the request opens: a payment (checkout, charge, transfer) or a refund. */
  readonly kind: 'payment' | 'refund';
  /** The amount, in integer minor units of `currency`. */
  readonly amountMinor: number;
  /** The currency as sent, upper-cased; `undefined` when the request names none (the provider then assumes one). */
  readonly currency: string | undefined;
  /**
   * The merchant reference the request carried, when the provider takes one: with an idempotency key it must be
   * the toolkit's `keyedReference(key)`, so a repeat is the same request to the provider.
   */
  readonly reference?: string;
}

/**
 * The simulator's truth, normalised (docs/architecture.md#conformance-suite): the conformance suite reads statuses,
 * event types, books and wire from here rather than from lists the adapter's author wrote, so a status the author
 * forgot is still driven and a bug about what the money means is caught.
 */
export interface SimulatorOracle<Simulator, Books> {
  /** Every payment status the simulator can report, and what each means. */
  readonly paymentStatuses: Readonly<Record<string, MoneyMeaning>>;
  /** Every payment and refund of `books`, normalised. */
  ledger(books: Books): readonly LedgerEntry[];
  /** The money `request` moves, decoded from its raw body; `undefined` for a request that moves none. */
  wire(request: RecordedRequest): WireMoney | undefined;
  /** Puts the payment `id` (as the adapter's record names it) in provider status `status`, as the provider would. */
  setPaymentStatus(simulator: Simulator, id: string, status: string): void | Promise<void>;
}

/** Options `pay dev` starts a simulator with: the kit's, and the kept signing key when the descriptor asks for one. */
export interface DevStartOptions extends SimulatorStartOptions {
  /** The kept private key (PKCS#8 PEM) to sign webhooks with; absent: the simulator's own. */
  signingKey?: string;
}

/** An adapter's simulator as the `pay` command runs it: `export const simulator` of the package's `./testing` entry. */
export interface SimulatorDescriptor<Config = Record<string, unknown>, Books = unknown> {
  /** The simulator's `PaymentSimulator.provider` (`provider-t`): `pay trigger` asks the running one for it. */
  readonly provider: string;
  /** The name people read (`Provider T`). */
  readonly label: string;
  /**
   * Every variable the adapter's default factory reads, `<PREFIX>_BASE_URL` included (core's `providerVariables`):
   * `pay dev` prints those `adapterConfig()` fills, and `pay trigger` finds the running simulator through the one
   * whose member is `baseUrl`. Empty when the adapter has no default factory.
   */
  readonly env: readonly EnvVariable[];
  /** The events `trigger` sends (`payment.succeeded`, `PAID`…), as `pay --help` shows them. */
  readonly events: readonly string[];
  /**
   * Whether a simulator started just for one event (when no `pay dev` answers) sends one the app accepts, and
   * why: `accepted: true` when its signature and content need nothing of the running simulator ("its events are
   * signed with the simulators' fixed secret"), else `false` with what only the running one has.
   */
  readonly throwawayTrigger: { readonly accepted: boolean; readonly because: string };
  /** A signing key `pay dev` keeps between runs; absent when the simulator signs with fixed test credentials. */
  readonly keptSigningKey?: KeptSigningKey;
  /**
   * Every payment, checkout, refund or transfer in `books`, for `pay dev`'s event log (docs/architecture.md#pay-dev);
   * absent: the page lists deliveries and requests only.
   */
  objects?(books: Books): readonly SimulatedObject[];
  /**
   * The id (one of {@link objects}') whose status `request` reads, `undefined` for any other request: the event
   * log shows each object's reads, so a developer sees the app (or its reconciler) poll.
   */
  readOf?(request: RecordedRequest, books: Books): string | undefined;
  /**
   * The simulator's books and wire, normalised, for the conformance suite's oracle checks: an adapter package
   * whose contract names this descriptor gets them without listing statuses or amounts itself.
   */
  readonly oracle?: SimulatorOracle<PaymentSimulator<Config, Books>, Books>;
  /** Starts the simulator on 127.0.0.1 (`options.port`), signing with `options.signingKey` when given. */
  start(options: DevStartOptions): Promise<PaymentSimulator<Config, Books>>;
}
