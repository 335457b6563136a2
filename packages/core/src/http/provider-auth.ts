/** Declared authorisation of the provider client (docs/architecture.md#provider-client-auth) and its transport. */
import { basicAuthorization } from '../crypto.js';
import { createRotatingLogin } from '../token.js';
import type { ProviderAuth, ProviderCall, ProviderClient, ProviderLogin } from './provider-types.js';
import type { Authorization, HttpClientOptions, HttpRequest, TransportOptions } from './types.js';

/** The client's side of a declared login: its authoriser, and the swap `updateCredentials` makes. */
export function loginOf<C extends object>(
  login: ProviderLogin<C>,
  client: () => ProviderClient,
): { authorization: Authorization; update(credentials: C): void } {
  const rotating = createRotatingLogin({
    ...login,
    login: (credentials) => login.login(credentials, client()),
  });
  return {
    authorization: rotating.authorization,
    update(credentials) {
      const checked = login.check(credentials);
      client().rememberSecrets(login.secrets(checked));
      rotating.update(checked);
    },
  };
}

/** The header a declared authorisation sends, and the values it makes secret. */
function headerOf(auth: ProviderAuth): { name: string; value: string; secrets: string[] } {
  if ('basic' in auth) {
    const [user, password] = auth.basic;
    return { name: 'authorization', value: basicAuthorization(user, password), secrets: [password] };
  }
  if ('bearer' in auth)
    return { name: 'authorization', value: `Bearer ${auth.bearer}`, secrets: [auth.bearer] };
  return { name: auth.header.toLowerCase(), value: auth.value, secrets: [auth.value] };
}

/**
 * The call as the HTTP client sends it: the call's own `auth`, else (unless `authorize: false`) the client's, read
 * once here so every attempt of the call sends the same credentials even when they are replaced meanwhile, as a
 * header of the call instead of the client's authoriser. `remember` is given the values to redact.
 */
export function authorised(
  call: ProviderCall,
  clientAuth: ProviderAuth | (() => ProviderAuth) | undefined,
  remember: (secrets: readonly string[]) => void,
): HttpRequest {
  const { auth: own, movesMoney: _movesMoney, ...request } = call;
  const auth =
    own ??
    (request.authorize === false ? undefined : typeof clientAuth === 'function' ? clientAuth() : clientAuth);
  if (auth === undefined) return request;
  const header = headerOf(auth);
  remember(header.secrets);
  request.headers = { ...request.headers, [header.name]: header.value };
  request.authorize = false;
  return request;
}

/** The HTTP client's transport members of an adapter's config (`baseUrl` and `tokenStore` are the adapter's). */
export function transportOf(
  transport: TransportOptions | undefined,
): Pick<HttpClientOptions, 'fetch' | 'timeoutMs' | 'retry' | 'hooks' | 'logger'> {
  if (!transport) return {};
  const { fetch, timeoutMs, retry, hooks, logger } = transport;
  return Object.fromEntries(
    Object.entries({ fetch, timeoutMs, retry, hooks, logger }).filter(([, value]) => value !== undefined),
  );
}
