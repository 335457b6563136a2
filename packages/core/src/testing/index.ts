/**
 * `@pay/core/testing`: the adapter contract suite and loopback server plumbing for simulators.
 * Test-only: it uses `node:http` and vitest.
 */
export { type AdapterContract, runAdapterContract } from './contract.js';
export {
  type Fault,
  FaultInjector,
  type FaultRule,
  type LoopbackServer,
  readRequestBody,
  sendJson,
  startLoopbackServer,
} from './server.js';
