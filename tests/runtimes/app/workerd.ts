/**
 * workerd entry: an ES module worker whose `CONFIG` binding (JSON) is the app's configuration; the app is built on
 * the first request and kept for the isolate's life.
 */
import { createRuntimeApp, type RuntimeAppConfig } from './app.js';

let app: ((request: Request) => Promise<Response>) | undefined;

export default {
  fetch(request: Request, env: { CONFIG: RuntimeAppConfig }): Promise<Response> {
    app ??= createRuntimeApp(env.CONFIG);
    return app(request);
  },
};
