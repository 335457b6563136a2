/**
 * `pay dev <adapter package>`: the adapter's simulator as a standalone server, like a provider's test mode on this
 * machine. It prints the configuration to use, forwards a signed webhook on every payment change, logs each
 * request and delivery, and on SIGINT/SIGTERM waits for deliveries in flight and stops.
 */
import type { RecordedRequest, WebhookAttempt, WebhookDelivery } from '@pay/core/testing';
import { type AnySimulator, adapterNamed, asPaymentSimulator } from './adapters.js';
import { type CliIo, parseCommandLine, UsageError, urlOption } from './command-line.js';
import { defaultStateDirectory, type KeptKeyFile, keptSigningKey } from './dev-key.js';
import { printedConfiguration } from './env.js';

/** Default port of `pay dev` (any free port with `--port 0`). */
export const DEFAULT_PORT = 4010;

/** How often new requests are logged. */
const LOG_INTERVAL_MS = 100;

/** Runs `pay dev`; resolves with the exit status once `io.stop` aborts. */
export async function dev(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandLine(args, {
    port: { type: 'string', short: 'p' },
    forward: { type: 'string' },
    state: { type: 'string' },
  });
  if (positionals.length > 1)
    throw new UsageError(`pay dev takes one adapter package, got "${positionals.join(' ')}".`);
  const port = portOption(values.port);
  const forward = values.forward === undefined ? null : urlOption('--forward', values.forward);
  const adapter = await adapterNamed(positionals[0], io.cwd ?? process.cwd());
  const { keptSigningKey: keptKey, label } = adapter.simulator;
  if (values.state !== undefined && keptKey === undefined)
    throw new UsageError(`--state keeps a simulator's signing key; ${label} keeps no state.`);
  const signingKey =
    keptKey === undefined
      ? undefined
      : keptSigningKey(values.state ?? defaultStateDirectory(io.env ?? process.env), keptKey);

  const simulator = await asPaymentSimulator(
    await adapter.simulator.start(signingKey ? { port, signingKey: signingKey.privateKey } : { port }),
    adapter,
    port,
  );
  // Straight to the app, never through a relay: Provider T signs the host each delivery is posted to, so only a
  // delivery addressed to the app itself verifies there. The attempts are logged from the delivery log.
  simulator.forwardWebhooks(forward);
  printBanner(io, label, adapter.simulator.env, simulator, forward, signingKey);

  const logRequests = requestLog(simulator, io);
  const logDeliveries = deliveryLog(simulator, io);
  const log = () => {
    logRequests();
    logDeliveries();
  };
  const timer = setInterval(log, LOG_INTERVAL_MS);
  await stopped(io.stop);
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
  label: string,
  env: Parameters<typeof printedConfiguration>[1],
  simulator: AnySimulator,
  forward: string | null,
  signingKey: KeptKeyFile | undefined,
): void {
  const { envLines, otherLines } = printedConfiguration(simulator.adapterConfig(), env);
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
  if (signingKey) io.out(signingKeyLine(signingKey));
  io.out('Press Ctrl+C to stop.');
}

/** Where the signing key is kept, and whether the app must be given its public half now. */
function signingKeyLine(kept: KeptKeyFile): string {
  return kept.made
    ? `Made a webhook signing key, kept in ${kept.file} (mode 0600): the next runs sign with it too.`
    : `Signing webhooks with the key kept in ${kept.file}: the same public key as the earlier runs.`;
}

/** A function that logs the requests not logged yet, in order. */
function requestLog(simulator: AnySimulator, io: CliIo): () => void {
  let logged = 0;
  return () => {
    const requests = simulator.requests;
    for (; logged < requests.length; logged += 1) {
      const request = requests[logged];
      if (request) io.out(requestLine(request));
    }
  };
}

/**
 * A function that logs the webhook delivery attempts not logged yet (each attempt once, in order), and a
 * delivery the simulator gave up on after its redeliveries.
 */
function deliveryLog(simulator: AnySimulator, io: CliIo): () => void {
  const logged = new Map<WebhookDelivery, { attempts: number; final: boolean }>();
  return () => {
    for (const delivery of simulator.deliveries ?? []) {
      const seen = logged.get(delivery) ?? { attempts: 0, final: false };
      logged.set(delivery, seen);
      for (; seen.attempts < delivery.attempts.length; seen.attempts += 1) {
        const attempt = delivery.attempts[seen.attempts];
        if (attempt) io.out(attemptLine(delivery, attempt));
      }
      if (delivery.state === 'failed' && !seen.final) {
        seen.final = true;
        io.out(
          `${clock()} webhook  -> ${delivery.url}: ${delivery.event} not delivered after ${delivery.attempts.length} attempt(s); the simulator stopped redelivering it`,
        );
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

function clock(): string {
  return new Date().toISOString().slice(11, 19);
}

function requestLine(request: RecordedRequest): string {
  const query = new URLSearchParams(request.query).toString();
  return `${clock()} request  ${request.method} ${request.path}${query ? `?${query}` : ''} (${request.requestId})`;
}

/** Resolves when `signal` aborts (never without one). */
function stopped(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (!signal) return;
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
