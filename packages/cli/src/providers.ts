/**
 * The providers `pay` can simulate: the simulator each adapter package ships in its `/testing` entry, and the
 * environment table its default factory reads (`PROVIDER_X_*`), so `pay dev` prints the variables that point an
 * app at the simulator without code changes.
 */
import { type EnvVariable, providerVariables } from '@pay/core/adapter';
import type { PaymentSimulator, SimulatorStartOptions } from '@pay/core/testing';
import * as providerN from '@pay/provider-n';
import { startProviderNSimulator } from '@pay/provider-n/testing';
import * as providerR from '@pay/provider-r';
import { startProviderRSimulator } from '@pay/provider-r/testing';
import * as providerT from '@pay/provider-t';
import { type ProviderTKeyPair, startProviderTSimulator } from '@pay/provider-t/testing';

/** A simulator as `pay` drives it: the kit's interface, whatever the provider's config and books. */
export type AnySimulator = PaymentSimulator<Record<string, unknown>, unknown>;

/** What `pay` knows about one provider. */
export interface SimulatedProvider {
  /** The name people read (`Provider N`). */
  label: string;
  /** The adapter package, for messages. */
  packageName: string;
  /** The adapter's environment table (empty when the package does not export one). */
  env: readonly EnvVariable[];
  /** Prefix of the adapter's variables (`PROVIDER_N`): `pay trigger` reads `<prefix>_BASE_URL`. */
  envPrefix: string;
  /**
   * Why `pay trigger` needs the RUNNING simulator (`pay dev`) for this provider, or `null` when a throwaway
   * simulator signs an event the app accepts just as well (then `pay trigger` falls back to one, saying so).
   */
  needsRunningSimulator: string | null;
  /**
   * The file in `pay dev`'s state directory keeping the simulator's webhook signing key across runs (a provider
   * whose app verifies with the public half the simulator prints); absent when its signing needs no kept key.
   */
  signingKeyFile?: string;
  /** Starts the provider's simulator; one with a `signingKeyFile` signs with `signingKey` (else a key of its own). */
  start(options: SimulatorStartOptions, signingKey?: ProviderTKeyPair): Promise<unknown>;
}

/** The adapter package's `PROVIDER_X_ENV` table, read defensively: rows with a string `env` and `member`. */
function envTable(exports: object, name: string): readonly EnvVariable[] {
  const table: unknown = Object.hasOwn(exports, name)
    ? (exports as Record<string, unknown>)[name]
    : undefined;
  if (!Array.isArray(table)) return [];
  return table.filter(
    (row): row is EnvVariable =>
      typeof row === 'object' &&
      row !== null &&
      typeof (row as EnvVariable).env === 'string' &&
      typeof (row as EnvVariable).member === 'string',
  );
}

/**
 * The variables an adapter's default factory reads (core's `providerVariables`: its table plus
 * `<prefix>_BASE_URL`, the line that points an app at the simulator); none when the adapter exports no table.
 */
function withBaseUrl(table: readonly EnvVariable[], prefix: string): readonly EnvVariable[] {
  return table.length === 0 ? table : providerVariables(prefix, table);
}

/** Every provider `pay dev` and `pay trigger` accept, by the name on the command line. */
export const PROVIDERS: ReadonlyMap<string, SimulatedProvider> = new Map([
  [
    'provider-t',
    {
      label: 'Provider T',
      packageName: '@pay/provider-t',
      env: withBaseUrl(envTable(providerT, 'PROVIDER_T_ENV'), 'PROVIDER_T'),
      envPrefix: 'PROVIDER_T',
      // The app's status read goes to the running simulator, whose books must hold the transfer the event reports.
      needsRunningSimulator:
        "its webhooks are signed with the running simulator's key (PROVIDER_T_WEBHOOK_PUBLIC_KEY) and the app's status read looks the transfer up in the running simulator",
      // The app verifies with the public key pay dev printed: a key made at each start would fail every delivery
      // to an app configured from an earlier run (src/dev-key.ts).
      signingKeyFile: 'provider-t-webhook-key.pem',
      start: (options: SimulatorStartOptions, signingKey?: ProviderTKeyPair) =>
        startProviderTSimulator(signingKey ? { ...options, keyPair: signingKey } : options),
    },
  ],
  [
    'provider-r',
    {
      label: 'Provider R',
      packageName: '@pay/provider-r',
      env: withBaseUrl(envTable(providerR, 'PROVIDER_R_ENV'), 'PROVIDER_R'),
      envPrefix: 'PROVIDER_R',
      // The app confirms every push with a status read at PROVIDER_R_BASE_URL: the running simulator's books.
      needsRunningSimulator:
        "the app confirms every push with a status read that the running simulator's books must answer",
      start: (options: SimulatorStartOptions) => startProviderRSimulator(options),
    },
  ],
  [
    'provider-n',
    {
      label: 'Provider N',
      packageName: '@pay/provider-n',
      env: withBaseUrl(envTable(providerN, 'PROVIDER_N_ENV'), 'PROVIDER_N'),
      envPrefix: 'PROVIDER_N',
      // Signed with the simulator's fixed secret and verified without a status read: any simulator will do.
      needsRunningSimulator: null,
      // Typed loosely until the Provider N simulator takes the kit's start options; `asPaymentSimulator` checks
      // at run time that it honoured the port.
      start: (options: SimulatorStartOptions) =>
        startProviderNSimulator(
          options as Parameters<typeof startProviderNSimulator>[0] & SimulatorStartOptions,
        ),
    },
  ],
]);

/** The members of the simulator interface `pay` calls. */
const REQUIRED_MEMBERS = ['url', 'adapterConfig', 'forwardWebhooks', 'trigger', 'close'] as const;

/**
 * The running simulator as the kit's `PaymentSimulator`, or an error naming the members it lacks (a simulator
 * that has not adopted the interface yet). The simulator is closed before the error is thrown.
 */
export async function asPaymentSimulator(
  running: unknown,
  provider: SimulatedProvider,
  port: number,
): Promise<AnySimulator> {
  const candidate = running as Partial<Record<(typeof REQUIRED_MEMBERS)[number], unknown>> | null;
  const missing = REQUIRED_MEMBERS.filter((member) => candidate?.[member] === undefined);
  const url = typeof candidate?.url === 'string' ? candidate.url : '';
  const ignoredPort = missing.length === 0 && port !== 0 && new URL(url).port !== String(port);
  if (missing.length === 0 && !ignoredPort) return running as AnySimulator;
  const close = candidate?.close;
  if (typeof close === 'function') await (close as () => Promise<void>).call(running);
  throw new Error(
    ignoredPort
      ? `The ${provider.label} simulator of ${provider.packageName} did not listen on port ${port} (it took ${url}): update the package.`
      : `The ${provider.label} simulator of ${provider.packageName} does not offer ${missing.join(', ')} ` +
          '(the @pay/core/testing PaymentSimulator interface): update the package.',
  );
}
