/**
 * `pnpm demo`: every provider end to end against its simulator, through the public API only (`createPay` and
 * each adapter pointed at its simulator with `baseUrl`), with a real local webhook endpoint behind core's Node
 * bridge. Prints a transcript and exits non-zero when any expectation fails.
 */
import { providerNDemo } from './provider-n.js';
import { providerRDemo } from './provider-r.js';
import { providerTDemo } from './provider-t.js';
import { failureCount } from './transcript.js';

const started = Date.now();
try {
  await providerTDemo();
  await providerRDemo();
  await providerNDemo();
} catch (error) {
  console.error('\nThe demo stopped on an unexpected error:', error);
  process.exitCode = 1;
}
const failures = failureCount();
console.log(
  `\n${failures === 0 ? 'demo passed' : `demo FAILED: ${failures} expectation(s) not met`} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
);
if (failures > 0) process.exitCode = 1;
