/**
 * The loopback HTTP server every simulator and test webhook endpoint runs on: a real server on 127.0.0.1, on an
 * OS-chosen port or a fixed one (`pay dev --port 4010`), with body reading and JSON replies.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Prefix of a simulator's control routes (test-only, e.g. `POST /_simulator/trigger`): this machine only. */
export const SIMULATOR_CONTROL_PREFIX = '/_simulator/';

/** Whether `address` (a socket's peer address) is this machine (127.0.0.0/8, `::1`, IPv4-mapped 127.x). */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4) || address === '::1';
}

/** A running loopback server. */
export interface LoopbackServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  server: Server;
  /** Stops listening and closes every open connection. */
  close(): Promise<void>;
}

/** Options of {@link startLoopbackServer}. */
export interface LoopbackServerOptions {
  /** A fixed port (for a server people point an app at); default 0, a free port chosen by the OS. */
  port?: number;
  /** Interface to listen on (default `127.0.0.1`: nothing outside this machine can reach a simulator). */
  host?: string;
}

/** What handles each request of a loopback server. */
export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

/**
 * Starts `listener` on 127.0.0.1 (a free port unless `options.port` is set). A listener that throws answers 500.
 * Rejects with a plain error naming the port when it is taken.
 */
export async function startLoopbackServer(
  listener: RequestListener,
  options: LoopbackServerOptions = {},
): Promise<LoopbackServer> {
  const host = options.host ?? '127.0.0.1';
  const server = createServer((req, res) => {
    Promise.resolve()
      .then(() => listener(req, res))
      .catch((error: unknown) => {
        if (!res.headersSent) {
          res.statusCode = 500;
          res.end(JSON.stringify({ error: String(error) }));
        } else res.destroy();
      });
  });
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve, reject) => {
    const refuse = (error: NodeJS.ErrnoException) => {
      const reason = error.code === 'EADDRINUSE' ? 'is already in use' : `cannot be used (${error.code})`;
      reject(
        new Error(`Port ${options.port ?? 0} on ${host} ${reason}: choose another port.`, { cause: error }),
      );
    };
    server.once('error', refuse);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', refuse);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Reads a request body as text. */
export async function readRequestBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Sends a JSON reply. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
