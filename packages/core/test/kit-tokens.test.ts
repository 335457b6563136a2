import { describe, expect, it } from 'vitest';
import { SimulatorClock, TokenIssuer } from '../src/testing/index.js';

describe('the simulator kit token issuer', () => {
  it('accepts a token until its lifetime has passed on the simulator clock', () => {
    const clock = new SimulatorClock();
    const tokens = new TokenIssuer({ clock, lifetimeSeconds: 60, prefix: 'pn_sim_' });
    const { token, expiresIn } = tokens.issue();
    expect(token).toMatch(/^pn_sim_[0-9a-f-]{36}$/);
    expect(expiresIn).toBe(60);
    expect(tokens.acceptsBearer(`Bearer ${token}`)).toBe(true);
    clock.advanceTime(59_000);
    expect(tokens.isValid(token)).toBe(true);
    clock.advanceTime(1_000);
    expect(tokens.isValid(token)).toBe(false);
    expect(tokens.issued).toBe(1);
  });

  it('revokes every token on expireTokens, and refuses other authorisation schemes', () => {
    const tokens = new TokenIssuer({ lifetimeSeconds: 3600 });
    const first = tokens.issue().token;
    const second = tokens.issue().token;
    expect(tokens.acceptsBearer(`Basic ${first}`)).toBe(false);
    expect(tokens.acceptsBearer(undefined)).toBe(false);
    expect(tokens.acceptsBearer('Bearer unknown')).toBe(false);
    tokens.expireTokens();
    expect(tokens.isValid(first)).toBe(false);
    expect(tokens.isValid(second)).toBe(false);
    expect(tokens.isValid(tokens.issue().token)).toBe(true);
  });

  it('never moves time backwards', () => {
    const clock = new SimulatorClock();
    expect(() => clock.advanceTime(-1)).toThrow(RangeError);
    const before = clock.now();
    clock.advanceTime(86_400_000);
    expect(clock.now() - before).toBeGreaterThanOrEqual(86_400_000);
    expect(clock.date().getTime()).toBeGreaterThanOrEqual(before + 86_400_000);
  });
});
