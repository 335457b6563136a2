/**
 * `@pay/core/testing`: loopback server plumbing for provider simulators (a real HTTP server on 127.0.0.1, body
 * reading, fault injection). Test-only: it uses `node:http`. It does not load any test runner, so a simulator
 * also runs in a plain script (`pnpm demo`); the adapter contract suite is `@pay/core/testing/contract`.
 */
export {
  type Fault,
  FaultInjector,
  type FaultRule,
  type LoopbackServer,
  readRequestBody,
  sendJson,
  startLoopbackServer,
} from './server.js';
