import { createMemoryDeduplicationStore, createPay, toFetchHandler } from '@pay/core';
import { providerN } from '@pay/provider-n';
import { markPaid } from '../../../lib/orders';

// Node.js, Next's default runtime: the edge runtime cannot cut a request body short, so a body over the bridge's
// limit would get no reply at all there.
export const runtime = 'nodejs';

// Made on the first delivery, not when the module loads: `next build` loads this module, usually without the
// provider's secrets, and providerN() refuses to start without them.
let webhook: ((request: Request) => Promise<Response>) | undefined;

function webhookBridge() {
  const handler = createPay(providerN())
    .webhooks.setup({
      webhookSecret: process.env.PROVIDER_N_SECRET_KEY,
      deduplicate: createMemoryDeduplicationStore(),
    })
    .on('payment.created', async (event) => {
      if (event.data.status === 'succeeded') await markPaid(event.data.id);
    });
  return toFetchHandler(handler, { publicOrigin: 'https://shop.example' });
}

export function POST(request: Request): Promise<Response> {
  webhook ??= webhookBridge();
  return webhook(request);
}
