/**
 * OAuth for the Provider T simulator (docs/providers/provider-t.md#authentication): client-credentials tokens from
 * the kit's token issuer, on the simulator's clock, answered in the sandbox's shape.
 */
import { SimulatorClock, TokenIssuer } from '@pay/core/testing';
import { json, type Reply } from './replies.js';

/**
 * The kit's clock on a base time a test may supply (`startProviderTSimulator({ now })`), so quote locks, tokens
 * and receipt links expire on the time the test controls, moved further by `advanceTime`.
 */
export class ProviderTClock extends SimulatorClock {
  readonly #base: () => number;
  #offsetMs = 0;

  /** A clock reading `base` (default `Date.now`) plus what `advanceTime` added. */
  constructor(base: () => number = Date.now) {
    super();
    this.#base = base;
  }

  override now(): number {
    return this.#base() + this.#offsetMs;
  }

  override advanceTime(ms: number): void {
    super.advanceTime(ms);
    this.#offsetMs += ms;
  }
}

/** The token endpoint and the bearer check of the simulator. */
export class ProviderTTokens {
  readonly issuer: TokenIssuer;
  readonly #basic: string;

  /** Tokens for the client `clientId:clientSecret`, living `lifetimeSeconds` on `clock`. */
  constructor(options: {
    clientId: string;
    clientSecret: string;
    lifetimeSeconds: number;
    clock: SimulatorClock;
  }) {
    this.#basic = `Basic ${Buffer.from(`${options.clientId}:${options.clientSecret}`).toString('base64')}`;
    this.issuer = new TokenIssuer({
      clock: options.clock,
      lifetimeSeconds: options.lifetimeSeconds,
      prefix: 'pt_sim_',
    });
  }

  /** `GET /oauth/accesstoken?grant_type=client_credentials` with the client's Basic credentials. */
  issue(query: Record<string, string>, headers: Record<string, string>): Reply {
    if (headers.authorization !== this.#basic) {
      return json(401, {
        error: { category: 'AUTHENTICATION', code: 'INVALID_CLIENT', message: 'Invalid client credentials' },
      });
    }
    if (query.grant_type !== 'client_credentials') {
      return json(400, {
        error: {
          category: 'VALIDATION',
          code: 'UNSUPPORTED_GRANT_TYPE',
          message: 'grant_type must be client_credentials',
        },
      });
    }
    const issued = this.issuer.issue();
    // As the sandbox sends it (test/fixtures/token.json): numbers as strings, and more fields than read.
    return json(200, {
      token_type: 'BearerToken',
      issued_at: String(this.issuer.clock.now()),
      access_token: issued.token,
      expires_in: String(issued.expiresIn),
      refresh_count: '0',
      status: 'approved',
    });
  }

  /** Whether the call carries a live bearer token. */
  authorised(headers: Record<string, string>): boolean {
    return this.issuer.acceptsBearer(headers.authorization);
  }
}
