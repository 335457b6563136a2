/**
 * A simulator's clock and the access tokens it issues. The clock is the wall clock plus an offset, so a test
 * moves time forward (`advanceTime`) without fake timers, and tokens expire against that clock the way the
 * provider's do; `expireTokens()` revokes every token at once (the next call gets the provider's 401).
 */

/** Wall-clock time plus an offset a test can advance. */
export class SimulatorClock {
  #offsetMs = 0;

  /** Milliseconds since the epoch, as the simulator sees it. */
  now(): number {
    return Date.now() + this.#offsetMs;
  }

  /** The simulator's current time as a `Date`. */
  date(): Date {
    return new Date(this.now());
  }

  /** Moves the simulator's time forward by `ms` (never backwards). */
  advanceTime(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0)
      throw new RangeError('advanceTime takes a non-negative number of ms.');
    this.#offsetMs += ms;
  }
}

/** Options of {@link TokenIssuer}. */
export interface TokenIssuerOptions {
  /** The clock tokens expire against (default: a new clock). */
  clock?: SimulatorClock;
  /** Lifetime of each token in seconds (what the provider reports as `expires_in`). */
  lifetimeSeconds: number;
  /** Prefix of issued tokens, e.g. `pn_sim_`. */
  prefix?: string;
}

/** A token the issuer handed out. */
export interface IssuedToken {
  token: string;
  /** Lifetime in seconds, as reported to the client. */
  expiresIn: number;
  /** Expiry on the simulator's clock (ms since the epoch). */
  expiresAt: number;
}

/** Issues bearer tokens, checks them against the clock, and revokes them on demand. */
export class TokenIssuer {
  readonly clock: SimulatorClock;
  readonly #tokens = new Map<string, number>();
  readonly #options: TokenIssuerOptions;
  #issued = 0;

  /** An issuer whose tokens live `options.lifetimeSeconds` on `options.clock`. */
  constructor(options: TokenIssuerOptions) {
    this.#options = options;
    this.clock = options.clock ?? new SimulatorClock();
  }

  /** How many tokens were issued (successful logins). */
  get issued(): number {
    return this.#issued;
  }

  /** Issues a new token. */
  issue(): IssuedToken {
    const token = `${this.#options.prefix ?? 'sim_'}${crypto.randomUUID()}`;
    const expiresAt = this.clock.now() + this.#options.lifetimeSeconds * 1000;
    this.#tokens.set(token, expiresAt);
    this.#issued += 1;
    return { token, expiresIn: this.#options.lifetimeSeconds, expiresAt };
  }

  /** True when `token` was issued, is not revoked and has not expired on the simulator's clock. */
  isValid(token: string): boolean {
    const expiresAt = this.#tokens.get(token);
    return expiresAt !== undefined && this.clock.now() < expiresAt;
  }

  /** True when an `Authorization: Bearer <token>` header value carries a valid token. */
  acceptsBearer(authorization: string | undefined): boolean {
    const match = /^Bearer (\S+)$/.exec(authorization ?? '');
    return match?.[1] !== undefined && this.isValid(match[1]);
  }

  /** Revokes every issued token now, as if they had all expired. */
  expireTokens(): void {
    this.#tokens.clear();
  }
}
