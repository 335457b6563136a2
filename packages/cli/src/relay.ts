/**
 * The webhook relay of `pay dev`: the simulator forwards its signed webhooks here, and the relay passes each one on
 * to the app unchanged (same body bytes, same signature headers), answers the simulator with the app's status (so
 * the simulator's redeliveries work as they would against the app), and logs every attempt. The log then never
 * depends on what a simulator exposes, and shows attempts that failed (the app not running yet) as well.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { type LoopbackServer, readRequestBody, startLoopbackServer } from '@pay/core/testing';

/** Headers that describe one hop, not the webhook: the relay's own request sets them again. */
const HOP_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
]);

/** How long the app has to answer one delivery. */
const APP_TIMEOUT_MS = 10_000;

/** Starts a relay to `target`; `log` receives one line per delivery attempt. */
export function startWebhookRelay(target: string, log: (line: string) => void): Promise<LoopbackServer> {
  return startLoopbackServer(async (req, res) => {
    const body = await readRequestBody(req);
    const headers = forwardedHeaders(req.headers);
    try {
      const reply = await fetch(target, {
        method: req.method ?? 'POST',
        headers,
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(APP_TIMEOUT_MS),
      });
      const answer = await reply.text();
      log(`webhook  -> ${target}: HTTP ${reply.status}${reply.ok ? '' : ` ${answer.slice(0, 200)}`}`);
      res.writeHead(reply.status, { 'content-type': reply.headers.get('content-type') ?? 'text/plain' });
      res.end(answer);
    } catch (error) {
      log(`webhook  -> ${target}: not delivered (${reason(error)}); the simulator will redeliver`);
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end('The app did not answer.');
    }
  });
}

function forwardedHeaders(incoming: IncomingHttpHeaders): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined || HOP_HEADERS.has(name)) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/** The network code (`ECONNREFUSED`) when there is one, else the message. */
function reason(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (error instanceof Error && error.name === 'TimeoutError') return `no answer within ${APP_TIMEOUT_MS} ms`;
  return error instanceof Error ? error.message : String(error);
}
