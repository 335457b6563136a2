/**
 * What `pay dev` prints so an app uses the simulator: the `PROVIDER_X_*` lines of the adapter's environment
 * table filled from the simulator's `adapterConfig()`, and the members no variable carries (the webhook secret
 * goes to `webhooks.setup()`, a test key to the factory).
 */
import type { EnvVariable } from '@pay/core/adapter';

/** The printed configuration: `NAME=value` lines and the members left over. */
export interface PrintedConfiguration {
  envLines: string[];
  /** `member: value` lines for what no environment variable carries. */
  otherLines: string[];
}

/** A config value as one line: strings as they are, everything else (and multi-line text) as JSON. */
function oneLine(value: unknown): string {
  if (typeof value === 'string' && !/[\r\n]/.test(value)) return value;
  return JSON.stringify(value) ?? String(value);
}

/** Splits `config` into environment lines (table order) and the other members (config order). */
export function printedConfiguration(
  config: Record<string, unknown>,
  env: readonly EnvVariable[],
): PrintedConfiguration {
  const covered = new Set<string>();
  const envLines: string[] = [];
  for (const { env: name, member } of env) {
    if (!Object.hasOwn(config, member) || config[member] === undefined) continue;
    covered.add(member);
    envLines.push(`${name}=${oneLine(config[member])}`);
  }
  const otherLines = Object.entries(config)
    .filter(([member, value]) => !covered.has(member) && value !== undefined && typeof value !== 'function')
    .map(([member, value]) => `${member}: ${oneLine(value)}`);
  return { envLines, otherLines };
}
