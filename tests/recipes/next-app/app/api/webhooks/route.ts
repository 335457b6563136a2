import { createMemoryDeduplicationStore, createPay, toFetchHandler } from '@pay/core';
import { providerN } from '@pay/provider-n';
import { markPaid } from '../../../lib/orders';

// Node.js, Next's default runtime: the edge runtime cannot cut a request body short, so a body over the bridge's
// limit would get no reply at all there.
export const runtime = 'nodejs';

// Built on the first delivery, not when the module loads: `next build` loads this module, usually without the
// provider's secrets. While one is missing at run time, each delivery is answered a JSON 500 naming it.
export const POST = toFetchHandler(
  () =>
    createPay(providerN())
      .webhooks.setup({
        webhookSecret: process.env.PROVIDER_N_SECRET_KEY,
        deduplicate: createMemoryDeduplicationStore(),
      })
      .on('payment.created', async (event) => {
        if (event.data.status === 'succeeded') await markPaid(event.data.id);
      }),
  { publicOrigin: 'https://shop.example' },
);
