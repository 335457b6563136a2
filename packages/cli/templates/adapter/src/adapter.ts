/**
 * The Provider Xyz adapter: one short function per operation, wiring its request (requests.ts) through the client
 * (client.ts) to its record (mapping.ts); every operation not implemented throws `ProviderNotSupportedError`
 * before any I/O, with the reason given here.
 */
import { defineAdapter } from '@pay/core/adapter';
import { createClient } from './client.js';
import { PROVIDER, type ProviderXyzConfig } from './config.js';
import { checkCheckout, checkRefund } from './requests.js';
import type { ProviderXyzAdapter, ProviderXyzTypes } from './types.js';
import { createWebhooks } from './webhooks.js';

/** Why an operation the skeleton plans is not there yet: the conformance test lists these until they are. */
const TODO = 'not implemented yet (TODO in src/adapter.ts)';

/** Builds the adapter for a checked `config`. */
export function createProviderXyzAdapter(config: ProviderXyzConfig): ProviderXyzAdapter {
  const client = createClient(config);
  const adapter = defineAdapter<ProviderXyzTypes>({
    provider: PROVIDER,
    // The @pay/core adapter contract this release is built for: createPay refuses it under another
    // (CONTRIBUTING.md#versions-and-peer-ranges).
    contract: 1,
    // TODO: implement each operation (and list it in types.ts' `operations`), e.g.
    //   async retrievePayment(id, context) {
    //     const found = await client.read(paymentReplySchema, paymentRequest(id), context);
    //     return found && toPayment(found.body, found.raw, found.requestId);
    //   },
    operations: {},
    // Every input check, before the idempotency ledger and before any call.
    checks: { createCheckout: checkCheckout, createRefund: checkRefund },
    unsupported: { 'checkouts.create': TODO, 'payments.retrieve': TODO, 'refunds.create': TODO },
    fallbackReason: 'Provider Xyz offers no such call',
    webhooks: createWebhooks(),
  });
  // `Object.assign` keeps the adapter object itself (and core's mark on it).
  return Object.assign(adapter, { updateCredentials: client.updateCredentials });
}
