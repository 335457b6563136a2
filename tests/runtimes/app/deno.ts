/**
 * Deno entry: serves the app on 127.0.0.1 at the port given (args: config JSON, port) and prints
 * `{"listening":<port>}` once it accepts requests.
 */
import { createRuntimeApp, type RuntimeAppConfig } from './app.js';

declare const Deno: {
  args: string[];
  serve(
    options: { hostname: string; port: number; onListen(address: { port: number }): void },
    handler: (request: Request) => Promise<Response>,
  ): unknown;
};

const [config, port] = Deno.args;
Deno.serve(
  {
    hostname: '127.0.0.1',
    port: Number(port),
    onListen: (address) => console.log(JSON.stringify({ listening: address.port })),
  },
  createRuntimeApp(JSON.parse(config ?? '{}') as RuntimeAppConfig),
);
