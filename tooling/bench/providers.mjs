// The provider benchmarks, one module per provider.
import * as providerR from './provider-r.mjs';

/** Every provider benchmark step, in the order they run. */
export async function providerBenchmarks() {
  return [providerR.overheadPayment, providerR.verifyLocal];
}
