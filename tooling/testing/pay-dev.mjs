// `pay dev` run as a user runs it, from an installed `pay` (tests/packaging's tarballs, tests/registry's releases).
import { spawn } from 'node:child_process';

/**
 * Starts `pay dev <args>` with the `pay` at `bin` in `cwd`; resolves once it says how to stop it (or it exits).
 * @param {string} bin
 * @param {string[]} args
 * @param {string} cwd
 */
export async function startPayDev(bin, args, cwd) {
  const child = spawn(bin, ['dev', ...args], { cwd });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + 20_000;
  while (!output.includes('Press Ctrl+C') && Date.now() < deadline && child.exitCode === null)
    await new Promise((resolve) => setTimeout(resolve, 50));
  return { child, output: () => output, exited };
}
