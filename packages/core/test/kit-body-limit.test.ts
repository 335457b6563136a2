import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  jsonReply,
  type LoopbackServer,
  MAX_REQUEST_BODY_BYTES,
  RequestLog,
  Routes,
  readRequestBody,
  simulatorListener,
  startLoopbackServer,
} from '../src/testing/index.js';

const servers: LoopbackServer[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A simulator with one route counting the bytes it got, logging every request. */
async function simulator() {
  const requests = new RequestLog();
  const routes = new Routes().post('/v1/payments', (request) =>
    jsonReply(201, { bytes: request.body.length }),
  );
  const server = await startLoopbackServer(simulatorListener({ routes, requests }));
  servers.push(server);
  return { server, requests };
}

/** What one raw connection got back, and how many body bytes it could send before the server stopped it. */
interface RawExchange {
  reply: string;
  sent: number;
}

/**
 * Writes `head`, then body chunks of `chunk` bytes (as chunked encoding when `chunked`) for as long as the server
 * keeps the connection open (or until `maxBytes`), and resolves with what came back once the socket closes.
 */
function rawPost(
  server: LoopbackServer,
  head: string,
  options: { chunked: boolean; maxBytes: number },
): Promise<RawExchange> {
  return new Promise((resolve) => {
    const socket = connect(server.port, '127.0.0.1');
    sockets.push(socket);
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let reply = '';
    let sent = 0;
    let open = true;
    const pump = () => {
      while (open && sent < options.maxBytes) {
        const frame = options.chunked
          ? Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')])
          : chunk;
        sent += chunk.length;
        if (!socket.write(frame)) return void socket.once('drain', pump);
      }
    };
    socket.on('data', (data) => {
      reply += data.toString('latin1');
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      open = false;
      resolve({ reply, sent });
    });
    socket.write(head, pump);
  });
}

describe('the simulator kit server bounds request bodies', () => {
  it('refuses a large Content-Length 413 without reading the body, and logs the request without it', async () => {
    const { server, requests } = await simulator();
    const declared = 64 * 1024 * 1024;
    const exchange = await rawPost(
      server,
      `POST /v1/payments HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\ncontent-type: application/json\r\ncontent-length: ${declared}\r\n\r\n`,
      { chunked: false, maxBytes: declared },
    );
    expect(exchange.reply).toMatch(/^HTTP\/1\.1 413 /);
    expect(exchange.reply.toLowerCase()).toContain('connection: close');
    expect(exchange.reply).toContain(`over ${MAX_REQUEST_BODY_BYTES} bytes`);
    // The server closed the connection long before the 64 MiB went out (socket buffers hold a few MiB at most).
    expect(exchange.sent).toBeLessThan(declared / 4);
    expect(requests.entries).toEqual([
      expect.objectContaining({ method: 'POST', path: '/v1/payments', body: '' }),
    ]);
  });

  it('cuts an endless chunked body at the limit with 413, and the log keeps no more than the limit', async () => {
    const { server, requests } = await simulator();
    const endless = 256 * 1024 * 1024;
    const exchange = await rawPost(
      server,
      `POST /v1/payments HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n`,
      { chunked: true, maxBytes: endless },
    );
    expect(exchange.reply).toMatch(/^HTTP\/1\.1 413 /);
    expect(exchange.sent).toBeLessThan(endless / 4);
    expect(requests.entries).toHaveLength(1);
    expect(requests.entries[0]?.body).toBe('');
  });

  it('still reads a body up to the limit, and a body one byte over is refused', async () => {
    const { server, requests } = await simulator();
    const post = (bytes: number) =>
      fetch(`${server.url}/v1/payments`, { method: 'POST', body: 'x'.repeat(bytes) });
    const atLimit = await post(MAX_REQUEST_BODY_BYTES);
    expect([atLimit.status, await atLimit.json()]).toEqual([201, { bytes: MAX_REQUEST_BODY_BYTES }]);
    const over = await post(MAX_REQUEST_BODY_BYTES + 1);
    expect(over.status).toBe(413);
    expect(requests.entries.map((entry) => entry.body.length)).toEqual([MAX_REQUEST_BODY_BYTES, 0]);
  });

  it('bounds a plain listener reading with readRequestBody the same way (a test webhook endpoint)', async () => {
    const received: string[] = [];
    const server = await startLoopbackServer(async (req, res) => {
      received.push(await readRequestBody(req, 16));
      res.end('ok');
    });
    servers.push(server);
    const small = await fetch(server.url, { method: 'POST', body: '{"id":"evt_1"}' });
    expect([small.status, await small.text()]).toEqual([200, 'ok']);
    const big = await fetch(server.url, { method: 'POST', body: '{"id":"evt_2","pad":"xxxxxxxx"}' });
    expect(big.status).toBe(413);
    expect(received).toEqual(['{"id":"evt_1"}']);
  });
});
