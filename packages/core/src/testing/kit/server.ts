/**
 * The loopback HTTP server every simulator and test webhook endpoint runs on: a real server on 127.0.0.1, on an
 * OS-chosen port or a fixed one (`pay dev --port 4010`), with bounded body reading and JSON replies.
 *
 * A simulator may run for hours under `pay dev`, reachable by every page the developer's browser opens: a body
 * is read up to {@link MAX_REQUEST_BODY_BYTES} and no further (docs/architecture.md#pay-dev), so neither a huge
 * `Content-Length` nor an endless chunked body can grow the process.
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

/**
 * Whether a `Host` header names this machine (`127.0.0.1:4010`, `localhost:4010`, `[::1]:4010`). A page reached
 * through DNS rebinding runs in the browser as its own origin and sends its own host name here.
 */
export function isLoopbackHost(host: string | undefined): boolean {
  if (host === undefined) return false;
  const name = host.replace(/:\d+$/, '').toLowerCase();
  return name === 'localhost' || name === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
}

/** Largest request body a simulator or test endpoint reads (1 MiB): a provider call or a form is a few KiB. */
export const MAX_REQUEST_BODY_BYTES = 1_048_576;

/**
 * A request whose body is over the limit. {@link startLoopbackServer} answers it 413 and closes the connection
 * without reading the rest.
 */
export class RequestBodyTooLargeError extends Error {
  override readonly name = 'RequestBodyTooLargeError';
  /** The limit in bytes. */
  readonly limit: number;

  /** The error for a body over `limit` bytes. */
  constructor(limit: number) {
    super(`The request body is over ${limit} bytes: the simulator reads no more.`);
    this.limit = limit;
  }
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
 * Starts `listener` on 127.0.0.1 (a free port unless `options.port` is set). A listener that throws answers 500;
 * one that throws {@link RequestBodyTooLargeError} answers 413 and the connection is closed, so the rest of the
 * body is never read. Rejects with a plain error naming the port when it is taken.
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
        if (res.headersSent) res.destroy();
        else if (error instanceof RequestBodyTooLargeError) {
          // `connection: close`: Node ends the socket once the reply is written instead of draining the body.
          res.writeHead(413, { 'content-type': 'application/json', connection: 'close' });
          res.end(JSON.stringify({ error: error.message }));
        } else {
          res.statusCode = 500;
          res.end(JSON.stringify({ error: String(error) }));
        }
      });
  });
  // The reply's hint `keep-alive: timeout=1` is below what fetch's undici (2 s) and Node's agent (1 s) keep in hand,
  // so neither reuses a connection: each call opens its own. Reuse (no idle timeout here) is cheaper per call, but
  // then calls of the Provider T load test (tests/reliability) sat ~2 s between being written and being read, and
  // some outlived both token expiries: the value stays until that is understood (docs/architecture.md#test-suites).
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

/**
 * Reads a request body as text, at most `limit` bytes: a larger `Content-Length` is refused before a byte is
 * read, and a chunked body stops being read at the limit. Either throws {@link RequestBodyTooLargeError}.
 */
export function readRequestBody(req: IncomingMessage, limit = MAX_REQUEST_BODY_BYTES): Promise<string> {
  if (Number(req.headers['content-length'] ?? 0) > limit)
    return Promise.reject(new RequestBodyTooLargeError(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (error: Error) => {
      req.off('data', take).off('end', done).off('error', stop);
      // Paused, not destroyed: the 413 still goes out on this socket before the server closes it.
      req.pause();
      reject(error);
    };
    const take = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) stop(new RequestBodyTooLargeError(limit));
      else chunks.push(chunk);
    };
    const done = () => resolve(Buffer.concat(chunks).toString('utf8'));
    req.on('data', take).on('end', done).on('error', stop);
  });
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
