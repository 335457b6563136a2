/**
 * `@pay/core/testing`: the simulator kit every provider simulator is built from (loopback server with routing,
 * request log, fault injection, token issuing with a clock, signed webhook forwarding, hosted pages, the
 * `PaymentSimulator` interface). Test-only: it uses `node:http`. It does not load any test runner, so a simulator
 * also runs in a plain script (`pnpm demo`, `pay dev`); the adapter contract suite is `@pay/core/testing/contract`.
 */
export * from './kit/index.js';
