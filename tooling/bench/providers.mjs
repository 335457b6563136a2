// The provider benchmarks, one module per provider.
import * as providerN from './provider-n.mjs';
import * as providerR from './provider-r.mjs';
import * as providerT from './provider-t.mjs';

/** Every provider benchmark step, in the order they run. */
export async function providerBenchmarks() {
  return [
    providerN.overheadCheckout,
    providerR.overheadPayment,
    providerT.overheadTransfer,
    providerN.verifyWebhooks,
    providerT.verifyWebhooks,
    providerR.verifyLocal,
    providerN.coldTokens,
  ];
}
