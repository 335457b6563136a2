// Benchmarks that need no simulator: event dispatch, cold import, bundle size.
import { execFileSync } from 'node:child_process';
import { gzipSync } from 'node:zlib';
import { createPay } from '@pay/core';
import { defineAdapter, webhookEvent } from '@pay/core/adapter';
import { build } from 'esbuild';
import { median, medianMs } from './harness.mjs';

const here = new URL('.', import.meta.url).pathname;

/** dispatch.10k: one delivery of 10,000 verified events, 3 callbacks each, through handler.handle. */
export async function dispatch10k() {
  const events = Array.from({ length: 10_000 }, (_, index) =>
    webhookEvent({
      key: ['bench', index],
      type: 'payment.updated',
      provider: 'providerN',
      data: { index },
      created: 0,
    }),
  );
  const adapter = defineAdapter({
    provider: 'providerN',
    operations: {},
    webhooks: {
      rawEventNames: [],
      secret: 'unused',
      verify: async () => ({ key: 'bench', events: async () => events }),
    },
  });
  let calls = 0;
  const callback = async () => {
    calls += 1;
  };
  const handler = createPay(adapter).webhooks.setup({ webhookSecret: null });
  handler.on('payment.updated', callback).on('payment.updated', callback).on('payment.updated', callback);
  const request = { body: '{}', headersAsObject: {}, fullUrl: 'https://bench.example/' };
  const ours = await medianMs(() => handler.handle(request), { warmup: 3, iterations: 15 });
  const callbacks = [callback, callback, callback];
  const baseline = await medianMs(
    async () => {
      for (const event of events) for (const cb of callbacks) await cb(event);
    },
    { warmup: 3, iterations: 15 },
  );
  if (calls === 0) throw new Error('dispatch benchmark ran no callback');
  return { name: 'dispatch.10k', ours, baseline, unit: 'ms' };
}

/** Median wall time of a fresh Node process running `code` (ESM), next to an empty process, interleaved. */
function processMs(code) {
  const run = (source) => {
    const started = process.hrtime.bigint();
    execFileSync(process.execPath, ['--input-type=module', '-e', source], { cwd: here });
    return Number(process.hrtime.bigint() - started) / 1e6;
  };
  for (let i = 0; i < 2; i++) {
    run(code);
    run('');
  }
  const ours = [];
  const baseline = [];
  for (let i = 0; i < 11; i++) {
    ours.push(run(code));
    baseline.push(run(''));
  }
  return { ours: median(ours), baseline: median(baseline) };
}

/**
 * import.cold: a fresh Node process importing @pay/core and one adapter (the built dist, as an application
 * resolves them), over an empty Node process. What serverless cold starts pay before the first line of the app.
 */
export function importCold() {
  const code = "await import('@pay/core'); await import('@pay/provider-n');";
  return { name: 'import.cold', ...processMs(code), unit: 'ms', target: 'ours − baseline ≤ 40' };
}

/** import.cold.core: the same with @pay/core alone, so an adapter's share is import.cold − import.cold.core. */
export function importColdCore() {
  return { name: 'import.cold.core', ...processMs("await import('@pay/core');"), unit: 'ms' };
}

/** size.<package>: minified + gzipped bytes of the ESM entry with its dependencies bundled, over without them. */
export async function bundleSizes() {
  const results = [];
  for (const name of ['core', 'provider-t', 'provider-r', 'provider-n']) {
    const entry = new URL(`../../packages/${name}/dist/index.js`, import.meta.url).pathname;
    const size = async (external) => {
      const output = await build({
        entryPoints: [entry],
        bundle: true,
        minify: true,
        format: 'esm',
        platform: 'neutral',
        write: false,
        external,
        logLevel: 'silent',
      });
      return gzipSync(output.outputFiles[0].contents).byteLength;
    };
    results.push({
      name: `size.${name}`,
      ours: await size([]),
      baseline: await size(['ky', 'valibot', '@pay/*']),
      unit: 'bytes (min+gz; baseline: own code only)',
    });
  }
  return results;
}
