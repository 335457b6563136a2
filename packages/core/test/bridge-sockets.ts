import { connect } from 'node:net';

/** What a raw-socket request got back. */
export interface RawReply {
  /** The status the server answered with, `undefined` when it answered nothing. */
  status: number | undefined;
  /** Everything the server wrote, as latin1 text. */
  reply: string;
  /** True when the connection was closed (by either side) before the timeout. */
  closed: boolean;
}

/**
 * Sends `head` (then `body`, if any) over a raw TCP socket to 127.0.0.1, so malformed requests reach the server
 * exactly as written. `abort` destroys the socket shortly after writing (a client giving up mid-body); `endless`
 * is written again and again until the server answers or closes. Resolves once the connection closes or after
 * `timeoutMs` (default 5 s).
 */
export function rawRequest(
  port: number,
  head: string,
  options: { body?: string; abort?: boolean; endless?: string; timeoutMs?: number } = {},
): Promise<RawReply> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    let settled = false;
    let pump: ReturnType<typeof setInterval> | undefined;
    const finish = (closed: boolean) => {
      if (settled) return;
      settled = true;
      clearInterval(pump);
      clearTimeout(timer);
      socket.destroy();
      const status = /^HTTP\/1\.1 (\d{3})/.exec(reply)?.[1];
      resolve({ status: status === undefined ? undefined : Number(status), reply, closed });
    };
    const timer = setTimeout(() => finish(false), options.timeoutMs ?? 5_000);
    socket.on('connect', () => {
      socket.write(head);
      if (options.body !== undefined) socket.write(options.body);
      if (options.abort) setTimeout(() => finish(true), 20);
      const chunk = options.endless;
      if (chunk !== undefined) {
        pump = setInterval(() => {
          if (socket.writable) socket.write(chunk);
        }, 1);
      }
    });
    socket.on('data', (data) => {
      reply += data.toString('latin1');
    });
    // A write that meets the server's close (EPIPE, ECONNRESET while `endless` pumps) errors before the reply
    // already received is read: settle on 'close', which always follows, so the reply's 'data' comes first.
    socket.on('error', () => undefined);
    socket.on('close', () => finish(true));
  });
}
