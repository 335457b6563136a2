/**
 * The `provider_metadata` each operation takes (TODO: what your provider needs beyond core's request fields):
 * `requests.ts` checks it before any call, `types.ts` infers its type from it.
 */
import * as v from '@pay/core/schema';

/** `checkouts.create`: the payer's e-mail address, which the provider requires to open a checkout. */
export const checkoutMetadataSchema = v.strictObject({
  email: v.pipe(v.string(), v.email('must be an e-mail address')),
});
