/** Signed Provider Xyz webhook deliveries, for the simulator and for your app's own webhook tests. */
import { SIGNATURE_HEADER, signatureOf } from '../webhooks.js';
import { PROVIDER_XYZ_SIMULATOR_SECRET_KEY } from './simulator/state.js';

/** The headers of a delivery of `body`, signed as the provider signs it (with the simulator's secret by default). */
export async function signProviderXyzWebhook(
  body: string,
  secret: string = PROVIDER_XYZ_SIMULATOR_SECRET_KEY,
): Promise<Record<string, string>> {
  return { [SIGNATURE_HEADER]: await signatureOf(secret, body) };
}
