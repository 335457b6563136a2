/**
 * The mutation corpus of the conformance suite (docs/architecture.md#conformance-suite): bugs planted into any
 * adapter's contract in-process, each a function that wraps the adapter, its transport or its declaration, and
 * the check that must catch it. An adapter package runs the corpus over its own contract (`checkContractMutation`)
 * to prove the suite catches each class of money bug on it: what the money means (a failed charge read or
 * announced as paid, minor units read as major, a status left out, a currency left off the wire, a signature over
 * re-serialised JSON, live records marked as test ones) and what the suite caught before (a resent money call, a
 * forged or replayed delivery, a float conversion, a not-found read that throws, a credential in an error, a
 * record naming another provider).
 */
import type { AnyAdapter } from '../adapter.js';
import { ProviderApiError } from '../errors.js';
import type { AuthenticatedDelivery, PayEvent, WebhookDelivery } from '../webhooks/types.js';
import { type AdapterContract, adapterContractChecks, type ContractFinding } from './contract-suite.js';
import type { AnySimulator, SimulatorContract } from './contract-types.js';

/** One planted bug: what it breaks, how it is planted, and the checks (by title) that must fail. */
export interface ContractMutation {
  /** Its name, e.g. `failed-read-as-paid`. */
  name: string;
  /** The class of money bug it stands for, as docs/architecture.md#conformance-suite lists them. */
  kind: string;
  /** The titles of the checks of which at least one must fail; only these run, so the corpus stays fast. */
  caughtBy: RegExp;
  /** `contract` with the bug planted; `undefined` when the bug cannot arise for this adapter (no simulator, no signed bytes). */
  plant(contract: AdapterContract): AdapterContract | undefined;
}

/** A wrapper of every adapter the contract builds, with the simulator it talks to when there is one. */
type AdapterWrapper = (adapter: AnyAdapter, simulator: AnySimulator | undefined) => AnyAdapter;

/** `contract` whose every adapter (fetch-built and simulator-built) goes through `wrap`. */
function wrappingAdapters(contract: AdapterContract, wrap: AdapterWrapper): AdapterContract {
  const { simulator } = contract;
  return {
    ...contract,
    createAdapter: (fetch) => wrap(contract.createAdapter(fetch), undefined),
    defaultFactory: () => wrap(contract.defaultFactory(), undefined),
    ...(simulator
      ? {
          simulator: {
            ...simulator,
            createAdapter: (running, settings) => wrap(simulator.createAdapter(running, settings), running),
          } as SimulatorContract,
        }
      : {}),
  };
}

/** `contract` whose simulator-built adapters send every request through `planted(fetch)`. */
function wrappingTransport(
  contract: AdapterContract,
  planted: (fetch: typeof globalThis.fetch) => typeof globalThis.fetch,
): AdapterContract | undefined {
  const { simulator } = contract;
  if (!simulator) return undefined;
  return {
    ...contract,
    simulator: {
      ...simulator,
      // The settings reach the simulator's `adapterConfig(overrides)`: every adapter config takes a `fetch`.
      createAdapter: (running, settings) =>
        simulator.createAdapter(running, {
          ...settings,
          fetch: planted(globalThis.fetch),
        } as typeof settings),
    } as SimulatorContract,
  };
}

/** The read methods whose records the read plants alter. */
const READS = ['retrievePayment', 'retrieveCheckout'] as const;

/**
 * `adapter` with each read's resolved record passed through `alter` (with the simulator, when known), and a `null`
 * (the provider holds no such id) through `onNull`.
 */
function alteringReads(
  alter: (record: Record<string, unknown>, simulator?: AnySimulator) => unknown,
  { onNull = () => null }: { onNull?: (adapter: AnyAdapter) => unknown } = {},
) {
  return (adapter: AnyAdapter, simulator: AnySimulator | undefined): AnyAdapter => {
    const methods = adapter as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    const altered: Record<string, unknown> = {};
    for (const name of READS) {
      const read = methods[name];
      if (typeof read !== 'function') continue;
      altered[name] = async (...args: unknown[]) => {
        const record = await read.apply(adapter, args);
        return record === null ? onNull(adapter) : alter(record as Record<string, unknown>, simulator);
      };
    }
    return { ...adapter, ...altered } as AnyAdapter;
  };
}

/** `adapter` with every method's resolved value passed through `alter` and every rejection through `fail`. */
function alteringAll(
  alter: (value: unknown) => unknown,
  fail: (error: unknown, simulator?: AnySimulator) => unknown = (error) => error,
) {
  return (adapter: AnyAdapter, simulator: AnySimulator | undefined): AnyAdapter => {
    const altered: Record<string, unknown> = {};
    for (const [name, member] of Object.entries(adapter))
      if (typeof member === 'function' && name !== 'resolve' && name !== 'reconcile')
        altered[name] = (...args: unknown[]) =>
          (member as (...inner: unknown[]) => Promise<unknown>).apply(adapter, args).then(alter, (error) => {
            throw fail(error, simulator);
          });
    return { ...adapter, ...altered } as AnyAdapter;
  };
}

/** `adapter` whose verified deliveries go through `alter`. */
function alteringWebhooks(
  alter: (
    verify: AnyAdapter['webhooks']['verify'],
    delivery: WebhookDelivery,
    secrets: readonly string[],
  ) => Promise<AuthenticatedDelivery>,
) {
  return (adapter: AnyAdapter): AnyAdapter => {
    const verify = adapter.webhooks.verify.bind(adapter.webhooks);
    return {
      ...adapter,
      webhooks: { ...adapter.webhooks, verify: (delivery, secrets) => alter(verify, delivery, secrets) },
    } as AnyAdapter;
  };
}

/** `record` as paid: the planted misreading of the read plants. */
const asPaid = (record: Record<string, unknown>) => ({ ...record, status: 'succeeded' });

/** A JSON request body with `alter` applied to it, other bodies as sent. */
function alteringJsonBodies(alter: (body: unknown) => unknown) {
  return (fetch: typeof globalThis.fetch): typeof globalThis.fetch =>
    async (input, init) => {
      const body = init?.body;
      if (typeof body !== 'string') return fetch(input, init);
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        return fetch(input, init);
      }
      return fetch(input, { ...init, body: JSON.stringify(alter(parsed)) });
    };
}

/** `value` with every member named like a currency removed, at any depth. */
function withoutCurrency(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutCurrency);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !/^(currency|currencyCode|curr)$/i.test(key))
      .map(([key, inner]) => [key, withoutCurrency(inner)]),
  );
}

/** `value` with every member named like a merchant reference replaced by a fresh one, at any depth. */
function withFreshReferences(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withFreshReferences);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      typeof inner === 'string' && /reference$|^refId$/i.test(key)
        ? `fresh-${crypto.randomUUID()}`
        : withFreshReferences(inner),
    ]),
  );
}

/** A float conversion: `19.99 * 100` truncated (1998), and its major-unit twin (19.98). */
const floatConverted = (amount: number) =>
  Number.isInteger(amount) ? Math.trunc((amount / 100) * 100) : Math.trunc(amount * 100) / 100;

/** `value` with every amount member converted through a float, at any depth. */
function withFloatAmounts(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withFloatAmounts);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      typeof inner === 'number' && /^(amount|price|value|refundAmount)$/.test(key)
        ? floatConverted(inner)
        : withFloatAmounts(inner),
    ]),
  );
}

/** A payment status the simulator can report that is not paid, the last one its oracle lists. */
function forgettableStatus(contract: AdapterContract): string | undefined {
  const statuses = contract.simulator?.descriptor?.oracle?.paymentStatuses ?? {};
  return Object.entries(statuses)
    .filter(([, meaning]) => meaning !== 'paid')
    .map(([status]) => status)
    .at(-1);
}

/** Whether the books say the payment `id` is in `status`. */
function booksSay(
  contract: AdapterContract,
  simulator: AnySimulator | undefined,
  id: unknown,
  status: string,
) {
  const oracle = contract.simulator?.descriptor?.oracle;
  if (!oracle || !simulator) return false;
  return oracle
    .ledger(simulator.books())
    .some((entry) => entry.kind === 'payment' && entry.id === id && entry.status === status);
}

/** Every planted bug of the corpus. */
export const CONTRACT_MUTATIONS: readonly ContractMutation[] = [
  {
    name: 'failed-read-as-paid',
    kind: 'what the money means',
    caughtBy: /reads every payment status the simulator can report with its meaning/,
    plant: (contract) =>
      wrappingAdapters(
        contract,
        alteringReads((record) =>
          record.status === 'failed' || record.status === 'canceled' ? asPaid(record) : record,
        ),
      ),
  },
  {
    name: 'failed-charge-announced-as-paid',
    kind: 'what the money means',
    caughtBy: /raises events that agree with the books from the genuine signed webhooks/,
    plant: (contract) =>
      wrappingAdapters(
        contract,
        alteringWebhooks(async (verify, delivery, secrets) => {
          const verified = await verify(delivery, secrets);
          return {
            ...verified,
            events: async () =>
              (await verified.events()).map(
                (event): PayEvent =>
                  event.type === 'payment.failed'
                    ? {
                        ...event,
                        type: 'payment.succeeded',
                        data: asPaid(event.data as Record<string, unknown>),
                      }
                    : event,
              ),
          };
        }),
      ),
  },
  {
    name: 'read-reports-minor-units-as-major',
    kind: 'what the money means',
    caughtBy: /reads every payment status the simulator can report with its meaning/,
    plant: (contract) =>
      wrappingAdapters(
        contract,
        alteringReads((record) =>
          typeof record.amount === 'number'
            ? {
                ...record,
                amount:
                  contract.simulator?.amounts.unit === 'minor' ? record.amount / 100 : record.amount * 100,
              }
            : record,
        ),
      ),
  },
  {
    name: 'forgotten-status-read-as-paid',
    kind: 'what the money means',
    caughtBy: /reads every payment status the simulator can report with its meaning/,
    plant(contract) {
      const status = forgettableStatus(contract);
      const { simulator } = contract;
      if (status === undefined || !simulator) return undefined;
      const forget = (list?: readonly string[]) => (list ?? []).filter((each) => each !== status);
      // The author forgot the status: it is in none of the contract's lists, and the adapter reads it as paid.
      const forgetful: AdapterContract = {
        ...contract,
        simulator: {
          ...simulator,
          statuses: {
            ...simulator.statuses,
            failed: forget(simulator.statuses.failed),
            notPaid: forget(simulator.statuses.notPaid),
          },
        },
      };
      return wrappingAdapters(
        forgetful,
        alteringReads((record, running) =>
          booksSay(contract, running, record.id, status) ? asPaid(record) : record,
        ),
      );
    },
  },
  {
    name: 'currency-left-off-the-wire',
    kind: 'what the money means',
    caughtBy: /as asked: the request the simulator decoded/,
    plant: (contract) => wrappingTransport(contract, alteringJsonBodies(withoutCurrency)),
  },
  {
    name: 'signature-over-reserialised-json',
    kind: 'raw bytes',
    caughtBy: /refuses a genuine delivery re-serialised/,
    plant: (contract) =>
      contract.unsignedBody
        ? undefined
        : wrappingAdapters(
            contract,
            alteringWebhooks((verify, delivery, secrets) => {
              let body = delivery.body;
              try {
                body = JSON.stringify(JSON.parse(delivery.body));
              } catch {
                // Not JSON: verified as received.
              }
              return verify({ ...delivery, body, rawBody: new TextEncoder().encode(body) }, secrets);
            }),
          ),
  },
  {
    name: 'reference-not-from-the-key',
    kind: 'what the money means',
    caughtBy: /sends the reference derived from the idempotency key/,
    plant: (contract) =>
      contract.simulator?.descriptor?.oracle && !contract.simulator.noReference
        ? wrappingTransport(contract, alteringJsonBodies(withFreshReferences))
        : undefined,
  },
  {
    name: 'live-records-marked-as-test',
    kind: 'livemode',
    caughtBy: /gives records livemode: true from a live configuration/,
    plant: (contract) =>
      wrappingAdapters(
        contract,
        alteringAll((value) =>
          value && typeof value === 'object' && 'livemode' in value ? { ...value, livemode: false } : value,
        ),
      ),
  },
  {
    name: 'record-names-another-provider',
    kind: 'records',
    caughtBy: /returns records that name its provider/,
    plant: (contract) =>
      wrappingAdapters(
        contract,
        alteringAll((value) =>
          value && typeof value === 'object' && 'provider' in value
            ? { ...value, provider: 'anotherProvider' }
            : value,
        ),
      ),
  },
  {
    name: 'float-amount-conversion',
    kind: 'exact amounts',
    caughtBy: /^sends .* exactly, in (major|minor) units$/,
    plant: (contract) => wrappingTransport(contract, alteringJsonBodies(withFloatAmounts)),
  },
  {
    name: 'money-call-resent-after-failure',
    kind: 'retries',
    caughtBy: /under HTTP 503 at each upstream step/,
    plant: (contract) =>
      wrappingTransport(contract, (fetch) => async (input, init) => {
        const reply = await fetch(input, init);
        // The planted bug: a failed POST or PUT (which may move money) is sent again by hand.
        if (reply.status < 500 || !/^(POST|PUT)$/i.test(init?.method ?? 'GET')) return reply;
        return fetch(input, init);
      }),
  },
  {
    name: 'unsigned-delivery-accepted',
    kind: 'signatures',
    caughtBy: /refuses a tampered webhook/,
    plant: (contract) =>
      wrappingAdapters(
        contract,
        alteringWebhooks(async (verify, delivery, secrets) => {
          try {
            return await verify(delivery, secrets);
          } catch {
            // The planted bug: a failed signature check falls back to a delivery it once verified.
            const genuine = await contract.genuineWebhook();
            const raw =
              typeof genuine.body === 'string' ? new TextEncoder().encode(genuine.body) : genuine.body;
            const headers = Object.fromEntries(
              Object.entries(genuine.headersAsObject as Record<string, string>).map(([k, v]) => [
                k.toLowerCase(),
                v,
              ]),
            );
            return verify(
              { rawBody: raw, body: new TextDecoder().decode(raw), headers, fullUrl: genuine.fullUrl },
              secrets,
            );
          }
        }),
      ),
  },
  {
    name: 'redelivery-key-changes',
    kind: 'deduplication',
    caughtBy: /with a deduplication store, skips a redelivery/,
    plant: (contract) =>
      wrappingAdapters(
        contract,
        alteringWebhooks(async (verify, delivery, secrets) => {
          const verified = await verify(delivery, secrets);
          return { ...verified, key: `${verified.key}:${crypto.randomUUID()}` };
        }),
      ),
  },
  {
    name: 'not-found-read-throws',
    kind: 'not found',
    caughtBy: /resolves a read of an id the provider does not hold to null/,
    plant: (contract) =>
      wrappingAdapters(
        contract,
        alteringReads((record) => record, {
          onNull: (adapter) => {
            throw new ProviderApiError({
              provider: adapter.provider,
              status: 404,
              kind: 'not_found',
              message: 'not found',
            });
          },
        }),
      ),
  },
  {
    name: 'credential-in-error',
    kind: 'credentials',
    caughtBy: /puts no credential in any error/,
    plant: (contract) =>
      wrappingAdapters(
        contract,
        alteringAll(
          (value) => value,
          (error, simulator) => {
            const [credential] = simulator ? (contract.simulator?.credentials(simulator) ?? []) : [];
            if (credential && error instanceof Error)
              error.message = `${error.message} (sent with ${credential})`;
            return error;
          },
        ),
      ),
  },
];

/** What {@link checkContractMutation} found: whether a check that must catch the bug failed, and what failed. */
export interface MutationOutcome {
  mutation: string;
  /** `false` when the bug cannot arise for this adapter (the plant returned nothing). */
  applicable: boolean;
  caught: boolean;
  findings: ContractFinding[];
}

/**
 * Plants `mutation` into `contract` and runs the checks that must catch it (those whose title matches
 * `mutation.caughtBy`): `caught` is true when at least one of them fails.
 */
export async function checkContractMutation(
  contract: AdapterContract,
  mutation: ContractMutation,
): Promise<MutationOutcome> {
  const planted = mutation.plant(contract);
  if (!planted) return { mutation: mutation.name, applicable: false, caught: false, findings: [] };
  const findings: ContractFinding[] = [];
  const checks = adapterContractChecks(planted).filter(({ name }) => mutation.caughtBy.test(name));
  if (checks.length === 0) throw new Error(`no check of the suite matches ${mutation.caughtBy}`);
  for (const { name, run } of checks) {
    try {
      await run();
    } catch (error) {
      findings.push({ check: name, message: error instanceof Error ? error.message : String(error) });
    }
  }
  return { mutation: mutation.name, applicable: true, caught: findings.length > 0, findings };
}
