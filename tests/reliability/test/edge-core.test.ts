import { describe, expect, it } from 'vitest';
import { loadInEdgeRuntime } from './edge.js';
import { addToEdgeRuntime } from './support-webhooks.js';

type Core = typeof import('@pay/core');
type Toolkit = typeof import('@pay/core/adapter');

describe('@pay/core on an edge runtime (no Node built-ins)', () => {
  it('loads in a context without Node globals', async () => {
    const { vm } = await loadInEdgeRuntime<Core>('@pay/core');
    expect(vm.evaluate('typeof Buffer')).toBe('undefined');
    expect(vm.evaluate('typeof require')).toBe('undefined');
    expect(vm.evaluate('typeof process')).toBe('undefined');
  });

  it('loads the adapter toolkit (@pay/core/adapter) in a context without Node globals', async () => {
    const { vm } = await loadInEdgeRuntime<Toolkit>('@pay/core/adapter');
    expect(vm.evaluate('[typeof Buffer, typeof require, typeof process]')).toEqual([
      'undefined',
      'undefined',
      'undefined',
    ]);
  });

  it('signs and compares with Web Crypto only', async () => {
    const { lib } = await loadInEdgeRuntime<Toolkit>('@pay/core/adapter');
    const signature = await lib.hmacSignature('secret', 'body', { algorithm: 'SHA-512', encoding: 'hex' });
    expect(signature).toMatch(/^[0-9a-f]{128}$/);
    expect(lib.timingSafeEqual(signature, signature)).toBe(true);
  });

  it('runs the Web bridge with a streaming body limit: 413, the body cut off, never a rejection', async () => {
    const { lib, vm } = await loadInEdgeRuntime<Core>('@pay/core');
    const toolkit = await addToEdgeRuntime<Toolkit>(vm, '@pay/core/adapter', '__payToolkit');
    const adapter = toolkit.defineAdapter({
      provider: 'providerN',
      operations: {},
      webhooks: {
        rawEventNames: [],
        secret: 'unused',
        verify: async () => ({ key: 'k', events: async () => [] }),
      },
    });
    const bridge = lib.toFetchHandler(lib.createPay(adapter).webhooks.setup({ webhookSecret: null }), {
      maxBodyBytes: 1024,
    });
    const RequestClass = vm.context.Request as typeof Request;
    const StreamClass = vm.context.ReadableStream as typeof ReadableStream;
    let pulled = 0;
    const endless = new StreamClass<Uint8Array>({
      pull(controller) {
        pulled += 1;
        if (pulled > 4096) controller.close();
        else controller.enqueue(new (vm.context.Uint8Array as typeof Uint8Array)(256));
      },
    });
    const reply = await bridge(
      new RequestClass('https://shop.example/hooks', {
        method: 'POST',
        body: endless,
        duplex: 'half',
      } as RequestInit),
    );
    expect(reply.status).toBe(413);
    expect(pulled).toBeLessThan(16);
    const small = await bridge(
      new RequestClass('https://shop.example/hooks', { method: 'POST', body: '{}' }),
    );
    expect(small.status).toBe(200);
  });
});
