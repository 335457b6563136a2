#!/usr/bin/env node
// `pnpm bench`: measures everything in one run, prints a table of ratios, and writes results.json as
// [{ name, ours, baseline, unit, ratio }]. Run after a build (the root `bench` script builds first).
import { writeFileSync } from 'node:fs';
import { coldBenchmarks } from './cold.mjs';
import { bundleSizes, dispatch10k, importCold, importColdCore } from './core.mjs';
import { latency20ms } from './latency.mjs';
import { providerBenchmarks } from './providers.mjs';
import { reconcileBenchmarks } from './reconcile.mjs';
import { storeBenchmarks } from './stores.mjs';
import { tracingIdle, tracingOtel } from './tracing.mjs';

const results = [];
async function record(step) {
  const outcome = await step();
  for (const result of [outcome].flat()) {
    const ratio = result.baseline ? result.ours / result.baseline : null;
    results.push({ ...result, ratio: ratio === null ? null : Number(ratio.toFixed(3)) });
    console.log(
      `${result.name.padEnd(32)} ${fmt(result.ours).padStart(12)} ${fmt(result.baseline).padStart(12)} ${String(ratio === null ? '-' : ratio.toFixed(3)).padStart(8)}  ${result.unit}${result.target ? `  (target ${result.target})` : ''}`,
    );
  }
}
function fmt(value) {
  return value === null || value === undefined ? '-' : Number(value.toPrecision(5)).toString();
}

console.log(
  `${'name'.padEnd(32)} ${'ours'.padStart(12)} ${'baseline'.padStart(12)} ${'ratio'.padStart(8)}  unit`,
);
await record(latency20ms);
for (const step of await providerBenchmarks()) await record(step);
for (const step of coldBenchmarks) await record(step);
await record(storeBenchmarks);
await record(reconcileBenchmarks);
await record(tracingIdle);
await record(tracingOtel);
await record(dispatch10k);
await record(importCold);
await record(importColdCore);
await record(bundleSizes);

const file = new URL('results.json', import.meta.url);
writeFileSync(
  file,
  `${JSON.stringify(
    results.map(({ target: _t, ...rest }) => rest),
    null,
    2,
  )}\n`,
);
console.log(`\nwrote ${file.pathname}`);
