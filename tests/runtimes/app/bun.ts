/**
 * Bun entry: serves the app on 127.0.0.1 at the port given (argv: config JSON, port) and prints
 * `{"listening":<port>}` once it accepts requests.
 */
import { createRuntimeApp, type RuntimeAppConfig } from './app.js';

declare const Bun: {
  argv: string[];
  serve(options: { hostname: string; port: number; fetch(request: Request): Promise<Response> }): {
    port: number;
  };
};

const [config, port] = Bun.argv.slice(2);
const server = Bun.serve({
  hostname: '127.0.0.1',
  port: Number(port),
  fetch: createRuntimeApp(JSON.parse(config ?? '{}') as RuntimeAppConfig),
});
console.log(JSON.stringify({ listening: server.port }));
