/**
 * `pay dev <provider>`: the provider's simulator as a standalone server, like a provider's test mode on this
 * machine. It prints the configuration to use, forwards a signed webhook on every payment change, logs each
 * request and delivery, and on SIGINT/SIGTERM waits for deliveries in flight and stops.
 */
import { parseArgs } from 'node:util';
import type { RecordedRequest } from '@pay/core/testing';
import { printedConfiguration } from './env.js';
import { type CliIo, providerNamed, UsageError, urlOption } from './main.js';
import { type AnySimulator, asPaymentSimulator } from './providers.js';
import { startWebhookRelay } from './relay.js';

/** Default port of `pay dev` (any free port with `--port 0`). */
export const DEFAULT_PORT = 4010;

/** How often new requests are logged. */
const LOG_INTERVAL_MS = 100;

/** Runs `pay dev`; resolves with the exit status once `io.stop` aborts. */
export async function dev(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: {
      port: { type: 'string', short: 'p' },
      forward: { type: 'string' },
    },
  });
  if (positionals.length > 1)
    throw new UsageError(`pay dev takes one provider, got "${positionals.join(' ')}".`);
  const provider = providerNamed(positionals[0]);
  const port = portOption(values.port);
  const forward = values.forward === undefined ? null : urlOption('--forward', values.forward);

  const simulator = await asPaymentSimulator(await provider.start({ port }), provider, port);
  const relay = forward ? await startWebhookRelay(forward, (line) => io.out(`${clock()} ${line}`)) : null;
  simulator.forwardWebhooks(relay ? `${relay.url}/` : null);
  printBanner(io, provider.label, provider.env, simulator, forward);

  const log = requestLog(simulator, io);
  const timer = setInterval(log, LOG_INTERVAL_MS);
  await stopped(io.stop);
  clearInterval(timer);
  log();
  io.out('Stopping: waiting for webhook deliveries in flight…');
  await simulator.close();
  await relay?.close();
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
  io.out('Press Ctrl+C to stop.');
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
