import type { ChildProcess } from 'node:child_process';

/** A running `pay dev`: its process, what it printed so far, and its exit status once it stops. */
export interface PayDev {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

/** Starts `pay dev <args>` with the `pay` at `bin` in `cwd`; resolves once it says how to stop it (or it exits). */
export function startPayDev(bin: string, args: string[], cwd: string): Promise<PayDev>;
