import type { IncomingMessage, ServerResponse } from 'node:http';
import { type LoopbackServer, startLoopbackServer } from '@pay/core/testing';
import type { CliIo } from '../src/main.js';

/** What the command printed, and a way to wait for a line. */
export function capturedIo(stop?: AbortSignal) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    out: (line) => void out.push(line),
    err: (line) => void err.push(line),
    ...(stop ? { stop } : {}),
  };
  return { io, out, err };
}

/** Resolves when `check()` returns a value (polled every 20 ms), or rejects after `ms`. */
export async function eventually<T>(check: () => T | undefined, ms = 15_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The `NAME=value` lines `pay dev` printed, as an object. */
export function envFrom(lines: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    lines
      .map((line) => /^ {2}([A-Z][A-Z0-9_]*)=(.*)$/.exec(line))
      .filter((match): match is RegExpExecArray => match !== null)
      .map((match) => [match[1] as string, match[2] as string]),
  );
}

/** An app on loopback whose request listener is set later (once the adapter config is known). */
export async function lateBoundApp(): Promise<{
  server: LoopbackServer;
  use(listener: (req: IncomingMessage, res: ServerResponse) => void): void;
}> {
  let current: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const server = await startLoopbackServer((req, res) => {
    if (!current) {
      res.statusCode = 503;
      res.end();
      return;
    }
    current(req, res);
  });
  return { server, use: (listener) => void (current = listener) };
}
