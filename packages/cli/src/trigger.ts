/**
 * `pay trigger <adapter package> <event> --to <url>`: one correctly signed event, sent once to the URL, printing the
 * status it got. Like a provider's CLI talking to its test mode, it asks the RUNNING simulator (`pay dev`, at
 * `--dev`, else `PROVIDER_X_BASE_URL`, else `http://127.0.0.1:4010`) through its control route, so the event is
 * signed with that simulator's keys and reports on a payment in its books: the app configured from `pay dev`'s
 * output verifies it and its status read confirms it. When no simulator answers, an adapter whose descriptor says a
 * throwaway simulator's events are accepted (`throwawayTrigger`) sends from one started for the event.
 */
import { SimulatorTriggerError, triggerOnSimulator } from '@pay/core/testing';
import { adapterNamed, asPaymentSimulator, commandName, type InstalledAdapter } from './adapters.js';
import { type CliIo, parseCommandLine, UsageError, urlOption } from './command-line.js';
import { DEFAULT_PORT } from './dev.js';

/** Where `pay trigger` looks for `pay dev` when neither `--dev` nor `PROVIDER_X_BASE_URL` says. */
export const DEFAULT_DEV_URL = `http://127.0.0.1:${DEFAULT_PORT}`;

/** The control route's status for a simulator of another provider (core's kit, `addTriggerRoute`). */
const ANOTHER_PROVIDER = 409;

/** The port suggested for a second `pay dev` beside one on {@link DEFAULT_PORT}. */
const OTHER_PORT = DEFAULT_PORT + 1;

/** Runs `pay trigger`: exit status 0 when the endpoint answered 2xx, 1 otherwise. */
export async function trigger(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandLine(args, {
    to: { type: 'string' },
    dev: { type: 'string' },
    option: { type: 'string', multiple: true },
  });
  const [adapterName, event, ...extra] = positionals;
  const adapter = await adapterNamed(adapterName, io.cwd ?? process.cwd());
  const { label, throwawayTrigger } = adapter.simulator;
  const name = commandName(adapter);
  if (event === undefined)
    throw new UsageError(
      `Name the event to send: pay trigger ${name} <event> --to <url>, the event one of ${adapter.simulator.events.join(', ')}.`,
    );
  if (extra.length > 0) throw new UsageError(`Unexpected argument(s): ${extra.join(' ')}.`);
  if (values.to === undefined) throw new UsageError('--to <url> is required: where to send the event.');
  const to = urlOption('--to', values.to);
  const options: Record<string, unknown> = {};
  for (const pair of values.option ?? []) {
    const separator = pair.indexOf('=');
    if (separator <= 0) throw new UsageError(`--option takes name=value, got "${pair}".`);
    options[pair.slice(0, separator)] = pair.slice(separator + 1);
  }
  const dev = devUrl(adapter, values.dev, io.env ?? process.env);

  let result: { status: number; body: string };
  try {
    result = await triggerOnSimulator(dev, { event, to, options, provider: adapter.simulator.provider });
  } catch (error) {
    if (!(error instanceof SimulatorTriggerError)) throw error;
    if (error.reason === 'refused' && error.status === ANOTHER_PROVIDER)
      throw new Error(
        `${error.message} pay trigger sends through ${dev}, so start yours elsewhere and name it: ` +
          `pay dev ${name} --port ${OTHER_PORT}, then pay trigger ${name} ${event} --to ${to} --dev ` +
          `http://127.0.0.1:${OTHER_PORT}.`,
      );
    if (error.reason === 'refused') throw new Error(error.message);
    if (error.reason === 'not_simulator')
      throw new Error(`${error.message} Run an up-to-date pay dev ${name} there, or pass --dev <url>.`);
    if (!throwawayTrigger.accepted)
      throw new Error(
        `No ${label} simulator answers at ${dev} (${error.code}). Start it with pay dev ${name} ` +
          '(and configure your app from what it prints), or pass --dev <url> where it runs. A throwaway ' +
          `simulator cannot stand in for it: ${throwawayTrigger.because}.`,
      );
    io.err(
      `pay: No ${label} simulator answers at ${dev} (${error.code}): sending from a throwaway simulator ` +
        `(${throwawayTrigger.because}, so your app accepts it all the same).`,
    );
    const simulator = await asPaymentSimulator(await adapter.simulator.start({ port: 0 }), adapter, 0);
    try {
      result = await simulator.trigger(event, { ...options, to });
    } finally {
      await simulator.close();
    }
  }
  const ok = result.status >= 200 && result.status < 300;
  io.out(`${label} ${event} -> ${to}: HTTP ${result.status}`);
  if (result.body !== '') io.out(result.body.length > 500 ? `${result.body.slice(0, 500)}…` : result.body);
  return ok ? 0 : 1;
}

/**
 * The URL of the running simulator: `--dev`, else the adapter's base URL variable (`PROVIDER_X_BASE_URL`, what the
 * app was pointed at), else {@link DEFAULT_DEV_URL}. Only a simulator on this machine: its control route answers
 * nothing else.
 */
function devUrl(
  adapter: InstalledAdapter,
  flag: string | undefined,
  env: Record<string, string | undefined>,
): string {
  const variable = adapter.simulator.env.find((row) => row.member === 'baseUrl')?.env;
  const fromEnv = variable === undefined || env[variable] === '' ? undefined : env[variable];
  const [source, value] =
    flag !== undefined
      ? ['--dev', flag]
      : fromEnv !== undefined
        ? [variable as string, fromEnv]
        : ['', DEFAULT_DEV_URL];
  const url = new URL(urlOption(source || '--dev', value));
  const host = url.hostname.toLowerCase();
  if (host !== '127.0.0.1' && host !== 'localhost' && host !== '[::1]')
    throw new UsageError(
      `${source} is ${url.origin}, not a simulator on this machine: pay trigger talks to the simulator of pay dev ` +
        '(127.0.0.1). Pass --dev http://127.0.0.1:<port>.',
    );
  return url.origin;
}
