// A small benchmark harness: warm-up, many timed iterations, medians. Benchmarks are measured here and printed,
// never asserted in tests (the machine's load would make such assertions flaky).
import { performance } from 'node:perf_hooks';
import ky from 'ky';

/** Median of numbers. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Median wall time in milliseconds of `fn` over `iterations` runs, after `warmup` runs. */
export async function medianMs(fn, { warmup = 20, iterations = 200 } = {}) {
  for (let i = 0; i < warmup; i++) await fn();
  const samples = [];
  for (let i = 0; i < iterations; i++) {
    const started = performance.now();
    await fn();
    samples.push(performance.now() - started);
  }
  return median(samples);
}

/**
 * Measures `ours` and `baseline` interleaved in rounds, so drift in the machine's load hits both alike, and
 * returns the median of each.
 */
export async function compareMs(ours, baseline, { warmup = 20, iterations = 200, rounds = 5 } = {}) {
  for (let i = 0; i < warmup; i++) {
    await ours();
    await baseline();
  }
  const a = [];
  const b = [];
  const perRound = Math.ceil(iterations / rounds);
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < perRound; i++) {
      let started = performance.now();
      await ours();
      a.push(performance.now() - started);
      started = performance.now();
      await baseline();
      b.push(performance.now() - started);
    }
  }
  return { ours: median(a), baseline: median(b) };
}

/** Operations per second of `fn`, from the median time of batches of `batch` calls. */
export async function opsPerSecond(fn, { batch = 200, warmup = 3, batches = 15 } = {}) {
  const ms = await medianMs(
    async () => {
      for (let i = 0; i < batch; i++) await fn(i);
    },
    { warmup, iterations: batches },
  );
  return (batch / ms) * 1000;
}

/** CPU milliseconds (user + system, this process) that `fn` took, `count` times in a row, per call. */
async function cpuMsPerCall(fn, count) {
  const started = process.cpuUsage();
  for (let i = 0; i < count; i++) await fn();
  const { user, system } = process.cpuUsage(started);
  return (user + system) / 1000 / count;
}

/**
 * Like {@link compareMs}, in process CPU time instead of wall time: batches of `batch` calls, `ours` and `baseline`
 * interleaved, the median of each one's batch means. Work the two arms share (a simulator in this process) counts
 * in both; CPU time moves less than wall time with the machine's load, since waiting for a core is not counted.
 */
export async function compareCpuMs(ours, baseline, { warmup = 20, batches = 40, batch = 10 } = {}) {
  for (let i = 0; i < warmup; i++) {
    await ours();
    await baseline();
  }
  const a = [];
  const b = [];
  for (let round = 0; round < batches; round++) {
    a.push(await cpuMsPerCall(ours, batch));
    b.push(await cpuMsPerCall(baseline, batch));
  }
  return { ours: median(a), baseline: median(b) };
}

const UTF8 = new TextDecoder();

/**
 * One exchange through ky as core's HTTP client makes it (packages/core/src/http/call.ts), nothing of ours around it:
 * retries off, no error for a status, core's default timeout, ky's Request carrying only the method, URL and signal,
 * the headers and body handed to fetch as they are and the reply read under ky's timeout. Resolves to the status and
 * the reply's text: the floor the design's HTTP client sets (docs/architecture.md#http-client).
 */
export async function kyExchange(url, { method, headers, body }) {
  let text;
  const response = await ky(url, {
    method,
    timeout: 30_000,
    retry: 0,
    throwHttpErrors: false,
    fetch: async (request) => {
      const answer = await fetch(request.url, {
        method: request.method,
        headers,
        body,
        signal: request.signal,
      });
      text = UTF8.decode(await answer.arrayBuffer());
      request.signal.throwIfAborted();
      return answer;
    },
  });
  return { ok: response.ok, status: response.status, text };
}

/** The same exchange with plain `fetch`: the status and the reply's text. */
export async function fetchExchange(url, init) {
  const response = await fetch(url, init);
  return { ok: response.ok, status: response.status, text: await response.text() };
}
