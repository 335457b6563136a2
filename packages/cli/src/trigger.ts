/**
 * `pay trigger <provider> <event> --to <url>`: one correctly signed event, built by the provider's simulator
 * from the payloads it emits (`PaymentSimulator.trigger`), sent once to the URL; prints the status it got.
 */
import { parseArgs } from 'node:util';
import { type CliIo, providerNamed, UsageError, urlOption } from './main.js';
import { asPaymentSimulator } from './providers.js';

/** Runs `pay trigger`: exit status 0 when the endpoint answered 2xx, 1 otherwise. */
export async function trigger(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: {
      to: { type: 'string' },
      option: { type: 'string', multiple: true },
    },
  });
  const [providerName, event, ...extra] = positionals;
  const provider = providerNamed(providerName);
  if (event === undefined)
    throw new UsageError(
      'Name the event to send, e.g. pay trigger provider-n SUCCESSFUL_TRANSACTION --to <url>.',
    );
  if (extra.length > 0) throw new UsageError(`Unexpected argument(s): ${extra.join(' ')}.`);
  if (values.to === undefined) throw new UsageError('--to <url> is required: where to send the event.');
  const to = urlOption('--to', values.to);
  const options: Record<string, unknown> = { to };
  for (const pair of values.option ?? []) {
    const separator = pair.indexOf('=');
    if (separator <= 0) throw new UsageError(`--option takes name=value, got "${pair}".`);
    options[pair.slice(0, separator)] = pair.slice(separator + 1);
  }

  const simulator = await asPaymentSimulator(await provider.start({ port: 0 }), provider, 0);
  try {
    const reply = await simulator.trigger(event, options);
    const ok = reply.status >= 200 && reply.status < 300;
    io.out(`${provider.label} ${event} -> ${to}: HTTP ${reply.status}`);
    if (reply.body !== '') io.out(reply.body.length > 500 ? `${reply.body.slice(0, 500)}…` : reply.body);
    return ok ? 0 : 1;
  } finally {
    await simulator.close();
  }
}
