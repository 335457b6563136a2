/**
 * `pay dev <adapter package>`: the adapter's simulator as a standalone server, like a provider's test mode on this
 * machine. It prints the configuration to use, forwards a signed webhook on every payment change (or drops some,
 * `--drop-webhooks`), serves an event log page (docs/architecture.md#pay-dev), logs each request and delivery,
 * and on SIGINT/SIGTERM waits for deliveries in flight and stops.
 */
import type { EnvVariable } from '@pay/core/adapter';
import {
  addEventLogPage,
  EVENT_LOG_PATH,
  type SimulatorParts,
  type WebhookAttempt,
  type WebhookDelivery,
} from '@pay/core/testing';
import { type AnySimulator, adapterNamed, asPaymentSimulator, type InstalledAdapter } from './adapters.js';
import { type CliIo, parseCommandLine, UsageError, urlOption } from './command-line.js';
import { defaultStateDirectory, keptSigningKey } from './dev-key.js';
import { printedConfiguration } from './env.js';

/** Default port of `pay dev` (any free port with `--port 0`). */
export const DEFAULT_PORT = 4010;

/** How many objects and webhook deliveries `pay dev` keeps by default (`--keep`). */
const DEFAULT_KEEP = 200;

/** Requests kept per object kept: enough for each object's creation and the app's reads of it. */
const REQUESTS_PER_OBJECT = 10;

/** How often new requests are logged. */
const LOG_INTERVAL_MS = 100;

/** Runs `pay dev`; resolves with the exit status once `io.stop` aborts. */
export async function dev(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandLine(args, {
    port: { type: 'string', short: 'p' },
    forward: { type: 'string' },
    'drop-webhooks': { type: 'string' },
    state: { type: 'string' },
    keep: { type: 'string' },
    'webhook-secret': { type: 'string' },
  });
  if (positionals.length > 1)
    throw new UsageError(`pay dev takes one adapter package, got "${positionals.join(' ')}".`);
  const port = portOption(values.port);
  const forward = values.forward === undefined ? null : urlOption('--forward', values.forward);
  const drop = dropOption(values['drop-webhooks'], forward);
  const keep = keepOption(values.keep);
  const adapter = await adapterNamed(positionals[0], io.cwd ?? process.cwd());
  const { keptSigningKey: keptKey, label } = adapter.simulator;
  if (values.state !== undefined && keptKey === undefined)
    throw new UsageError(`--state keeps a simulator's signing key; ${label} keeps no state.`);
  const webhookSecret = webhookSecretOption(values['webhook-secret'], keptKey !== undefined, label);
  const signingKey =
    keptKey === undefined
      ? undefined
      : keptSigningKey(values.state ?? defaultStateDirectory(io.env ?? process.env), keptKey);

  const eventLog = eventLogFor(adapter, { drop, keep }, io.random ?? Math.random);
  const started = await adapter.simulator.start({
    port,
    attach: eventLog.attach,
    ...(signingKey ? { signingKey: signingKey.privateKey } : {}),
    ...(webhookSecret === undefined ? {} : { webhookSecret }),
  });
  const simulator = await asPaymentSimulator(started, adapter, port);
  eventLog.running = simulator;
  if (!eventLog.attached && drop > 0) {
    await simulator.close();
    throw new Error(
      `The ${label} simulator of ${adapter.packageName} does not take the kit's attach option (SimulatorStartOptions of @pay/core/testing), so it cannot drop webhooks: update the package.`,
    );
  }
  // Straight to the app, never through a relay: Provider T signs the host each delivery is posted to, so only a
  // delivery addressed to the app itself verifies there. The attempts are logged from the delivery log.
  simulator.forwardWebhooks(forward);
  printBanner(io, adapter.simulator, simulator, forward, signingKey);
  io.out(
    eventLog.attached
      ? `Event log (objects, reads, webhook deliveries, send again): ${simulator.url}${EVENT_LOG_PATH}`
      : `No event log: the ${label} simulator does not take the kit's attach option.`,
  );
  if (webhookSecret !== undefined)
    io.out(
      'Signing webhooks with the secret of --webhook-secret, not the one above: to rehearse a rotation, give your ' +
        'handler the new secret first and the old one after it, then drop the old one ' +
        '(docs/architecture.md#credential-rotation).',
    );
  if (drop > 0) {
    const which = drop >= 1 ? 'every webhook' : `about ${Math.round(drop * 100)}% of webhooks, at random`;
    io.out(
      `Dropping ${which} (--drop-webhooks): each dropped one is in the event log, to send again from there.`,
    );
  }
  if (eventLog.attached)
    io.out(
      `Keeping the last ${keep} objects and webhook deliveries on the event log and ${keep * REQUESTS_PER_OBJECT} ` +
        'requests (--keep): the page says how many older ones it left out.',
    );
  io.out('Press Ctrl+C to stop.');

  const logActivity = activityLog(simulator, io, () => eventLog.requests?.forgotten ?? 0);
  const log = () => {
    logActivity();
    eventLog.forgetOldest();
  };
  const timer = setInterval(log, LOG_INTERVAL_MS);
  // Runs until `io.stop` aborts (forever without one).
  await new Promise<void>((resolve) => {
    if (io.stop?.aborted) resolve();
    else io.stop?.addEventListener('abort', () => resolve(), { once: true });
  });
  clearInterval(timer);
  log();
  io.out('Stopping: waiting for webhook deliveries in flight…');
  await simulator.close();
  log();
  io.out('Stopped.');
  return 0;
}

/** `--port`: an integer 0–65535 (0: any free port), default {@link DEFAULT_PORT}. */
function portOption(value: string | undefined): number {
  if (value === undefined) return DEFAULT_PORT;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65_535)
    throw new UsageError(`--port must be a port number 0–65535, got "${value}".`);
  return port;
}

function printBanner(
  io: CliIo,
  { label, env }: InstalledAdapter['simulator'],
  simulator: AnySimulator,
  forward: string | null,
  signingKey: ReturnType<typeof keptSigningKey> | undefined,
): void {
  const { envLines, otherLines } = printedConfiguration(
    { ...simulator.adapterConfig(), ...signedHost(env, forward) },
    env,
  );
  io.out(`${label} simulator listening on ${simulator.url} (test mode: no real money moves)`);
  io.out('');
  if (envLines.length > 0) {
    io.out('Point your app at it with these environment variables:');
    for (const line of envLines) io.out(`  ${line}`);
  }
  if (otherLines.length > 0) {
    io.out(
      envLines.length > 0
        ? 'and pass these to the adapter factory / webhooks.setup() (no environment variable carries them):'
        : 'Pass this configuration to the adapter factory (the adapter package exports no environment table):',
    );
    for (const line of otherLines) io.out(`  ${line}`);
  }
  io.out('');
  io.out(
    forward
      ? `Forwarding a signed webhook to ${forward} on every payment change.`
      : 'Not forwarding webhooks (add --forward http://localhost:3000/webhooks).',
  );
  const hostVariable = env.find(({ member }) => member === SIGNED_HOST_MEMBER)?.env;
  if (hostVariable !== undefined && forward === null)
    io.out(
      `Set ${hostVariable} to the host of your webhook URL (localhost:3000): the simulator signs each delivery ` +
        'for the host it is posted to (with --forward, pay dev prints it).',
    );
  if (signingKey)
    io.out(
      signingKey.made
        ? `Made a webhook signing key, kept in ${signingKey.file} (mode 0600): the next runs sign with it too.`
        : `Signing webhooks with the key kept in ${signingKey.file}: the same public key as the earlier runs.`,
    );
}

/**
 * `--webhook-secret`: the secret the simulator signs its webhooks with instead of its own (a rotation rehearsal);
 * refused blank, as core refuses a blank secret, and for a simulator that signs with a key pair (`--state`).
 */
function webhookSecretOption(
  value: string | undefined,
  signsWithKey: boolean,
  label: string,
): string | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === '') throw new UsageError('--webhook-secret must not be blank.');
  if (signsWithKey)
    throw new UsageError(
      `--webhook-secret replaces a shared webhook secret; the ${label} simulator signs with a key pair (--state).`,
    );
  return value;
}

/** `--keep`: how many objects and deliveries to keep, a positive integer (default {@link DEFAULT_KEEP}). */
function keepOption(value: string | undefined): number {
  if (value === undefined) return DEFAULT_KEEP;
  const keep = Number(value);
  if (!/^\d+$/.test(value) || keep < 1 || keep > 100_000)
    throw new UsageError(`--keep must be a whole number from 1 to 100000, got "${value}".`);
  return keep;
}

/**
 * The adapter config member naming the host a webhook signature covers (Provider T's `webhookHost`,
 * docs/providers/provider-t.md#signature). The adapter verifies against it before any host a bridge's
 * `publicOrigin` gives, so a recipe copied with its production `publicOrigin` verifies `pay dev`'s deliveries
 * once it is set to the host they are posted to.
 */
const SIGNED_HOST_MEMBER = 'webhookHost';

/** `{ webhookHost: <host of --forward> }` when the adapter's environment table has that member, else nothing. */
function signedHost(env: readonly EnvVariable[], forward: string | null): Record<string, string> {
  if (forward === null || !env.some(({ member }) => member === SIGNED_HOST_MEMBER)) return {};
  return { [SIGNED_HOST_MEMBER]: new URL(forward).host };
}

/**
 * `--drop-webhooks`: `all`, or the share of webhooks to drop, a number from 0 to 1 (default 0: none). Dropping
 * needs `--forward`: without it no webhook is sent to drop.
 */
function dropOption(value: string | undefined, forward: string | null): number {
  if (value === undefined) return 0;
  const share = value === 'all' ? 1 : /^(?:0|1|0?\.\d+|[01]\.0*)$/.test(value) ? Number(value) : Number.NaN;
  if (!(share >= 0 && share <= 1))
    throw new UsageError(
      `--drop-webhooks takes all or a share from 0 to 1 (0.3: about 3 in 10), got "${value}".`,
    );
  if (share > 0 && forward === null)
    throw new UsageError(
      '--drop-webhooks drops webhooks sent to --forward: add --forward <your webhook URL>.',
    );
  return share;
}

/**
 * What `pay dev` attaches to the simulator as it starts (the kit's `attach`): the webhook drops, and the event
 * log page, which reads the running simulator's books and requests through the adapter's descriptor.
 */
function eventLogFor(
  adapter: InstalledAdapter,
  { drop, keep }: { drop: number; keep: number },
  random: () => number,
) {
  const state = {
    attached: false,
    running: undefined as AnySimulator | undefined,
    requests: undefined as SimulatorParts['requests'] | undefined,
    /** Forgets the oldest deliveries and requests past `--keep`: called once the activity log has logged them. */
    forgetOldest: () => {},
    attach: ({ routes, forwarder, requests }: SimulatorParts) => {
      state.attached = true;
      if (drop > 0) forwarder.dropWebhooks(drop, random);
      state.requests = requests;
      // A long session stays small: the oldest deliveries and requests are forgotten, the page says how many.
      state.forgetOldest = () => {
        forwarder.forgetOldest(keep);
        requests.forgetOldest(keep * REQUESTS_PER_OBJECT);
      };
      addEventLogPage(routes, {
        keep,
        provider: adapter.simulator.label,
        forwarder,
        requests: () => state.running?.requests ?? [],
        books: () => state.running?.books(),
        descriptor: adapter.simulator,
      });
    },
  };
  return state;
}

/**
 * A function that logs what happened since it last ran, in order: the requests the simulator answered, each webhook
 * delivery attempt, and a delivery dropped or given up on after its redeliveries.
 */
function activityLog(simulator: AnySimulator, io: CliIo, forgottenRequests: () => number): () => void {
  const clock = () => new Date().toISOString().slice(11, 19);
  // Counted over the whole run: the request log forgets its oldest entries (--keep).
  let requestsLogged = 0;
  const deliveries = new Map<WebhookDelivery, { attempts: number; ends: Set<string> }>();
  return () => {
    const requests = simulator.requests;
    const forgotten = forgottenRequests();
    for (const request of requests.slice(Math.max(0, requestsLogged - forgotten))) {
      // The event log page's own views are the developer's, not the app's: they would drown the log.
      if (request.path === EVENT_LOG_PATH) continue;
      const query = new URLSearchParams(request.query).toString();
      io.out(
        `${clock()} request  ${request.method} ${request.path}${query ? `?${query}` : ''} (${request.requestId})`,
      );
    }
    requestsLogged = forgotten + requests.length;
    const current = simulator.deliveries ?? [];
    // Forget what the forwarder forgot, so the log's own memory stays as small.
    const kept = new Set(current);
    for (const delivery of deliveries.keys()) if (!kept.has(delivery)) deliveries.delete(delivery);
    for (const delivery of current) {
      const seen = deliveries.get(delivery) ?? { attempts: 0, ends: new Set<string>() };
      deliveries.set(delivery, seen);
      for (const attempt of delivery.attempts.slice(seen.attempts)) io.out(attemptLine(delivery, attempt));
      seen.attempts = delivery.attempts.length;
      if ((delivery.state === 'dropped' || delivery.state === 'failed') && !seen.ends.has(delivery.state)) {
        seen.ends.add(delivery.state);
        const end =
          delivery.state === 'dropped'
            ? 'dropped (--drop-webhooks), not sent'
            : `not delivered after ${delivery.attempts.length} attempt(s); the simulator stopped redelivering it`;
        io.out(`${clock()} webhook  -> ${delivery.url}: ${delivery.event} ${end}`);
      }
    }
  };
}

function attemptLine(delivery: WebhookDelivery, attempt: WebhookAttempt): string {
  const at = attempt.at.slice(11, 19);
  if (attempt.status === undefined)
    return `${at} webhook  -> ${delivery.url}: not delivered (${attempt.error ?? 'no answer'})`;
  const ok = attempt.status >= 200 && attempt.status < 300;
  return `${at} webhook  -> ${delivery.url}: HTTP ${attempt.status}${ok || !attempt.answer ? '' : ` ${attempt.answer}`}`;
}
