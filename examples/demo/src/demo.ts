/**
 * `pnpm demo`: every provider end to end on the local loop a newcomer uses with `pay dev`, through the public API
 * only: each simulator started as `pay dev` starts it, the adapter configured from `simulator.adapterConfig()`,
 * the app's webhook endpoint (core's Node bridge) receiving the simulator's forwarded signed webhooks, and the
 * payer acting on the hosted page over HTTP. Prints a transcript and exits non-zero when any expectation fails.
 */
import { providerNDemo } from './provider-n.js';
import { providerRDemo } from './provider-r.js';
import { providerTDemo } from './provider-t.js';
import { failureCount } from './transcript.js';

const started = Date.now();
let stopped = 0;
try {
  await providerTDemo();
  await providerRDemo();
  await providerNDemo();
} catch (error) {
  console.error('\nThe demo stopped on an unexpected error:', error);
  stopped = 1;
}
const failures = failureCount() + stopped;
console.log(
  `\n${failures === 0 ? 'demo passed' : `demo FAILED: ${failures} expectation(s) not met`} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
);
if (failures > 0) process.exitCode = 1;
