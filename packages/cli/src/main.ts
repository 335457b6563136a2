/**
 * The `pay` command: `pay dev <adapter package>` runs an adapter's simulator as a local server and forwards its
 * signed webhooks to an app; `pay trigger <adapter package> <event> --to <url>` sends one signed event. The
 * adapters are the app's installed packages whose `./testing` entry describes a simulator
 * (docs/architecture.md#simulator-descriptor); `pay new adapter <dir>` writes a new adapter package to start
 * from, and `pay check [<dir>]` holds one to the rules the `@pay` adapters keep. `main(argv, io)` is the whole
 * command (the `bin` only wires the process to it), so tests call it directly.
 */
import { commandName, installedAdapters } from './adapters.js';
import { check } from './check.js';
import { type CliIo, isParseArgsError, UsageError } from './command-line.js';
import { dev } from './dev.js';
import { newPackage } from './new.js';
import { trigger } from './trigger.js';

/** The help text; `pay --help` adds the adapters installed in the app. */
export const USAGE = `Usage:
  pay dev <adapter> [--port 4010] [--forward http://localhost:3000/webhooks] [--drop-webhooks all|<0..1>]
          [--state <dir>] [--keep 200] [--webhook-secret <secret>]
      Runs the adapter's simulator on 127.0.0.1, prints the configuration that points your app at it,
      forwards a signed webhook to --forward on every payment change, and logs requests and deliveries.
      --drop-webhooks all (or a share such as 0.3, drawn at random) logs webhooks as dropped instead of
      sending them, to see what your app does without them. The event log page at
      http://127.0.0.1:<port>/_simulator/events lists each payment with its provider status and your app's
      reads of it, and every webhook delivery with your app's answers and a Send again button.
      --keep N keeps the last N objects and webhook deliveries on the event log (default 200; the page says
      how many it left out). With --forward, Provider T's banner prints PROVIDER_T_WEBHOOK_HOST, the host
      its deliveries are signed for. --webhook-secret <secret> signs webhooks with that secret instead of
      the simulator's own, to rehearse a webhook secret rotation.
      A simulator that keeps a webhook signing key keeps it in --state (default: <user cache directory>/pay).
      Ctrl+C stops it.
  pay trigger <adapter> <event> --to <url> [--dev http://127.0.0.1:4010] [--option name=value ...]
      Asks the running pay dev simulator (--dev, else the adapter's PROVIDER_X_BASE_URL, else
      http://127.0.0.1:4010) to send one correctly signed <event> about a payment in its books to <url>, and
      prints the HTTP status it got (exit status 1 unless 2xx). Where the adapter allows it, a throwaway
      simulator sends the event when none runs.

  pay new adapter <dir> --name @acme/pay-provider-x --provider acmePay [--label "Acme Pay"]
      Writes the skeleton of an adapter package into <dir> (new or empty): source with TODOs, a simulator,
      the conformance test, README and changeset. npm test then lists what is left to fill in.

  pay check [<dir>]
      Checks the adapter package in <dir> (default: this folder) against the rules the @pay adapters keep:
      runtime sources use Web-standard APIs only (a node: import or Buffer only in src/testing/), and src/
      has the files and role names of CONTRIBUTING.md. Lists each departure (exit status 1). The skeleton's
      npm run lint runs it after Biome.

  <adapter> is an installed adapter package (@acme/pay-provider-x), or an @pay/ one by its short name
  (provider-r for @pay/provider-r): a package whose ./testing entry exports a simulator descriptor.`;

/** The help text with the adapters installed for `cwd`, each with its events. */
async function help(cwd: string): Promise<string> {
  const adapters = await installedAdapters(cwd);
  const lines = adapters.map(
    (adapter) =>
      `  ${commandName(adapter).padEnd(24)} ${adapter.simulator.label}: ${adapter.simulator.events.join(', ')}`,
  );
  return lines.length === 0
    ? `${USAGE}\n\nNo adapter package is installed here: install one (it lists itself here).`
    : `${USAGE}\n\nInstalled adapters (and the events pay trigger sends):\n${lines.join('\n')}`;
}

/** Runs `pay` with `argv` (without `node` and the script): resolves to the exit status. */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
      io.out(await help(io.cwd ?? process.cwd()));
      return command === undefined ? 2 : 0;
    }
    if (command === 'dev') return await dev(rest, io);
    if (command === 'trigger') return await trigger(rest, io);
    if (command === 'new') return await newPackage(rest, io);
    if (command === 'check') return await check(rest, io);
    throw new UsageError(`Unknown command "${command}": use pay dev, pay trigger, pay new or pay check.`);
  } catch (error) {
    if (error instanceof UsageError || isParseArgsError(error)) {
      io.err(`pay: ${(error as Error).message}`);
      io.err('Run pay --help for usage.');
      return 2;
    }
    io.err(`pay: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}
