/**
 * The built packages on Deno (from `@deno/linux-x64-glibc`): see `scenario.ts` for what is checked. Without network
 * access to the provider, the error a call throws names Deno's reason, not only that no token could be obtained.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FailedCall } from '../app/app.js';
import { type RunningRuntime, startDeno } from './runtimes.js';
import { post, runtimeChecks, type Simulators, startSimulators } from './scenario.js';

describe('Deno with --allow-net', () => {
  runtimeChecks(startDeno);
});

describe('Deno allowed its own port only (no net access to the provider)', () => {
  let simulators: Simulators;
  let runtime: RunningRuntime;
  beforeAll(async () => {
    simulators = await startSimulators();
    runtime = await startDeno(simulators.config, { ownPortOnly: true });
  });
  afterAll(async () => {
    await runtime?.stop();
    await simulators?.close();
  });

  it("a checkout that needs a login fails with Deno's reason in the message, and nothing reached the provider", async () => {
    const provider = new URL(simulators.n.url).host;
    const { status, body } = await post(runtime, '/checkouts/provider-n');
    expect(status).toBe(500);
    expect((body as FailedCall).error).toEqual({
      name: 'NetworkError',
      code: 'network_error',
      outcome: 'not_sent',
      message:
        'providerN POST /v1/merchant/transactions/init-transaction was not sent: no access token could be ' +
        `obtained (login: providerN POST /v1/auth/login to ${provider} failed (Requires net access to ` +
        `"${provider}", run again with the --allow-net flag)). It is safe to send again.`,
    });
    expect(simulators.n.requests).toEqual([]);
  });
});
