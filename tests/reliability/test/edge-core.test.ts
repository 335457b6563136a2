import { describe, expect, it } from 'vitest';
import { loadInEdgeRuntime } from './edge.js';

type Core = typeof import('@pay/core');

describe('@pay/core on an edge runtime (no Node built-ins)', () => {
  it('loads in a context without Node globals', async () => {
    const { vm } = await loadInEdgeRuntime<Core>('@pay/core');
    expect(vm.evaluate('typeof Buffer')).toBe('undefined');
    expect(vm.evaluate('typeof require')).toBe('undefined');
    expect(vm.evaluate('typeof process')).toBe('undefined');
  });

  it('signs and compares with Web Crypto only', async () => {
    const { lib } = await loadInEdgeRuntime<Core>('@pay/core');
    const signature = await lib.hmacSha512Hex('secret', 'body');
    expect(signature).toMatch(/^[0-9a-f]{128}$/);
    expect(lib.timingSafeEqual(signature, signature)).toBe(true);
  });
});
