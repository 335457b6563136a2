/**
 * The events the Provider R simulator's `trigger` sends (`pay trigger provider-r <event>`): a Provider R status
 * (`PAID`, or `providerR.PAID` as the handler names it), or a normalised event that exactly one status stands for
 * in the adapter's own table (`payment.succeeded` → `PAID`, docs/providers/provider-r.md#events). Anything else is
 * refused with the names it takes, never pushed as a status Provider R does not have.
 */
import { STATUS_EVENTS } from '../../mapping.js';
import { PROVIDER_R_STATUSES, type ProviderRStatus } from '../../wire.js';

/** The prefix of the raw event names the webhook handler dispatches (`providerR.PAID`). */
const RAW_PREFIX = 'providerR.';

/** Normalised event → the statuses that send it (the adapter's status → events table read backwards). */
const STATUSES_OF_EVENT: ReadonlyMap<string, readonly ProviderRStatus[]> = PROVIDER_R_STATUSES.reduce(
  (table, status) => {
    for (const event of STATUS_EVENTS[status]) table.set(event, [...(table.get(event) ?? []), status]);
    return table;
  },
  new Map<string, ProviderRStatus[]>(),
);

/** The Provider R status `event` names, or an error naming the events the simulator triggers. */
export function triggeredStatus(event: string): ProviderRStatus {
  const raw = (event.startsWith(RAW_PREFIX) ? event.slice(RAW_PREFIX.length) : event).toUpperCase();
  const status = PROVIDER_R_STATUSES.find((candidate) => candidate === raw);
  if (status !== undefined) return status;
  const statuses = STATUSES_OF_EVENT.get(event) ?? [];
  if (statuses.length === 1) return statuses[0] as ProviderRStatus;
  const normalised = [...STATUSES_OF_EVENT]
    .filter(([, sent]) => sent.length === 1)
    .map(([name, [sent]]) => `${name} (${sent})`);
  throw new Error(
    `The Provider R simulator triggers ${PROVIDER_R_STATUSES.join(', ')} (also as ${RAW_PREFIX}<status>) or ` +
      `${normalised.join(', ')}, not ${event}.`,
  );
}
