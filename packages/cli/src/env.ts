/**
 * What `pay dev` prints so an app uses the simulator: the `PROVIDER_X_*` lines of the adapter's environment
 * table filled from the simulator's `adapterConfig()`, and the members no variable carries (the webhook secret
 * goes to `webhooks.setup()`, a test key to the factory).
 */
import type { EnvVariable } from '@pay/core/adapter';

/** A config value as one line: strings as they are, everything else (and multi-line text) as JSON. */
function oneLine(value: unknown): string {
  if (typeof value === 'string' && !/[\r\n]/.test(value)) return value;
  return JSON.stringify(value) ?? String(value);
}

/**
 * Splits `config` into `NAME=value` lines (table order) and `member: value` lines for what no environment variable
 * carries (config order).
 */
export function printedConfiguration(config: Record<string, unknown>, env: readonly EnvVariable[]) {
  const carried = env.filter(({ member }) => Object.hasOwn(config, member) && config[member] !== undefined);
  const covered = new Set(carried.map(({ member }) => member));
  return {
    envLines: carried.map(({ env: name, member }) => `${name}=${oneLine(config[member])}`),
    otherLines: Object.entries(config)
      .filter(([member, value]) => !covered.has(member) && value !== undefined && typeof value !== 'function')
      .map(([member, value]) => `${member}: ${oneLine(value)}`),
  };
}
