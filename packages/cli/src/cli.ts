#!/usr/bin/env node
/** The `pay` executable: wires the process (arguments, output, SIGINT/SIGTERM, exit status) to `main`. */
import { main } from './main.js';

const stop = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort(signal));

process.exitCode = await main(process.argv.slice(2), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  stop: stop.signal,
});
