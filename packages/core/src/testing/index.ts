/**
 * `@pay/core/testing`: the adapter contract suite and loopback server plumbing for simulators.
 * Test-only: it uses `node:http` and vitest.
 */
export { runAdapterContract, type AdapterContract } from './contract.js';
export {
  FaultInjector,
  readRequestBody,
  sendJson,
  startLoopbackServer,
  type Fault,
  type FaultRule,
  type LoopbackServer,
} from './server.js';
