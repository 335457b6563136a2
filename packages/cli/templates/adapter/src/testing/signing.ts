/** Signed Provider Xyz webhook deliveries, for the simulator and for your app's own webhook tests. */
import { hmacSignature } from '@pay/core/adapter';
import { SIGNATURE_HEADER, SIGNATURE_SCHEME } from '../webhooks.js';
import { PROVIDER_XYZ_SIMULATOR_SECRET_KEY } from './simulator/state.js';

/** The headers of a delivery of `body`, signed as the provider signs it (with the simulator's secret by default). */
export async function signProviderXyzWebhook(
  body: string,
  secret: string = PROVIDER_XYZ_SIMULATOR_SECRET_KEY,
): Promise<Record<string, string>> {
  return { [SIGNATURE_HEADER]: await hmacSignature(secret, body, SIGNATURE_SCHEME) };
}
