/**
 * The adapter's own `logger` option reaches its HTTP client (core's transport option): a retried call is reported
 * there at `debug`, redacted. Against the simulator over loopback, with one 503 injected on the status read.
 */
import { createPay } from '@pay/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProviderT } from '../src/index.js';
import { type ProviderTSimulator, startProviderTSimulator } from '../src/testing/index.js';

let sim: ProviderTSimulator;
beforeEach(async () => {
  sim = await startProviderTSimulator();
});
afterEach(async () => {
  await sim.close();
});

describe('createProviderT({ logger })', () => {
  it('reports a retried status read to the logger given to the adapter, without its credentials', async () => {
    const lines: { level: string; text: string }[] = [];
    const record =
      (level: string) =>
      (...args: unknown[]) =>
        void lines.push({ level, text: args.map((arg) => JSON.stringify(arg) ?? String(arg)).join(' ') });
    const logger = {
      debug: record('debug'),
      info: record('info'),
      warn: record('warn'),
      error: record('error'),
    };
    const pay = createPay(createProviderT(sim.adapterConfig({ retry: 1, logger })));
    const transfer = sim.books().transfers;
    expect(transfer).toEqual([]);
    sim.faults.inject({
      method: 'GET',
      path: /^\/status\//,
      times: 1,
      fault: { kind: 'status', status: 503 },
    });
    await expect(pay.payments.retrieve('00000000-0000-4000-8000-000000000000')).resolves.toBeNull();
    expect(lines.filter((line) => line.level === 'debug').length).toBeGreaterThan(0);
    expect(lines.some((line) => /retr/i.test(line.text) && line.text.includes('503'))).toBe(true);
    const { clientSecret } = sim.adapterConfig();
    expect(lines.some((line) => line.text.includes(clientSecret))).toBe(false);
  });
});
