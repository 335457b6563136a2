/**
 * OAuth for the Provider T simulator (wire contract "Authentication (outbound)"): client-credentials tokens with
 * a lifetime on the simulator's clock, and the bearer check of every API call.
 */
import { randomBytes } from 'node:crypto';
import { json, type Reply } from './replies.js';

/** Issues and checks access tokens. */
export class ProviderTTokens {
  readonly #tokens = new Map<string, number>();
  readonly #basic: string;
  readonly #lifetimeSeconds: number;
  readonly #now: () => number;
  issued = 0;

  constructor(options: {
    clientId: string;
    clientSecret: string;
    lifetimeSeconds: number;
    now: () => number;
  }) {
    this.#basic = `Basic ${Buffer.from(`${options.clientId}:${options.clientSecret}`).toString('base64')}`;
    this.#lifetimeSeconds = options.lifetimeSeconds;
    this.#now = options.now;
  }

  /** `GET /oauth/accesstoken?grant_type=client_credentials` with the client's Basic credentials. */
  issue(query: URLSearchParams, headers: Record<string, string>): Reply {
    if (headers.authorization !== this.#basic) {
      return json(401, {
        error: { category: 'AUTHENTICATION', code: 'INVALID_CLIENT', message: 'Invalid client credentials' },
      });
    }
    if (query.get('grant_type') !== 'client_credentials') {
      return json(400, {
        error: {
          category: 'VALIDATION',
          code: 'UNSUPPORTED_GRANT_TYPE',
          message: 'grant_type must be client_credentials',
        },
      });
    }
    const token = randomBytes(18).toString('base64url');
    this.#tokens.set(token, this.#now() + this.#lifetimeSeconds * 1000);
    this.issued += 1;
    // As the sandbox sends it (test/fixtures/token.json): numbers as strings, and more fields than read.
    return json(200, {
      token_type: 'BearerToken',
      issued_at: String(this.#now()),
      access_token: token,
      expires_in: String(this.#lifetimeSeconds),
      refresh_count: '0',
      status: 'approved',
    });
  }

  /** Whether the call carries a live bearer token. */
  authorised(headers: Record<string, string>): boolean {
    const authorization = headers.authorization;
    const token = authorization?.startsWith('Bearer ') ? authorization.slice(7) : undefined;
    const expiry = token === undefined ? undefined : this.#tokens.get(token);
    return expiry !== undefined && expiry > this.#now();
  }

  /** Invalidates every token, so the next call is answered 401. */
  expireAll(): void {
    this.#tokens.clear();
  }
}
