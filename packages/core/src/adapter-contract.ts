/**
 * The adapter contract's version (docs/architecture.md#adapter-contract-version): what an adapter package is built
 * against, checked at `createPay` so that an adapter the package manager let through with a core it was not built
 * for is refused before any call instead of failing in the middle of one.
 */
import { ConfigurationError } from './errors.js';

/**
 * The version of the contract between `@pay/core` and adapters: the operations' arguments and records, the
 * `defineAdapter` definition, and the toolkit in `@pay/core/adapter`. It goes up by one with every core release that
 * could break an adapter built for the one before (until 1.0, each core minor; docs/architecture.md#versions). An
 * adapter writes the number it was built against as a literal, `defineAdapter({ contract: 1, ... })`: importing
 * this constant would always match the installed core.
 */
export const ADAPTER_CONTRACT = 1;

/**
 * Refuses an adapter that declares a contract other than this core's: a `ConfigurationError` naming both. An
 * adapter that declares none (a hand-written test double) is not checked.
 */
export function checkAdapterContract(adapter: { provider: string; contract?: number }): void {
  const built = adapter.contract;
  if (built === undefined || built === ADAPTER_CONTRACT) return;
  throw new ConfigurationError(
    `The ${adapter.provider} adapter was built for @pay/core adapter contract ${String(built)}, but the installed @pay/core implements adapter contract ${ADAPTER_CONTRACT}: install the adapter release whose peer range on @pay/core includes the installed core (npm ls @pay/core), or the @pay/core that range names.`,
  );
}
