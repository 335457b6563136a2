/**
 * The built packages on workerd (from `@cloudflare/workerd-linux-64`) as an ES module worker: see `scenario.ts` for
 * what is checked. At the binary's own compatibility date, and at one before 2025-05-05, where Workers have no
 * `WeakRef` (core holds its credential sets without it). Provider R's form-encoded status replies are read as
 * bytes: workerd warns on every `.text()` of a body whose content type is not text.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { startWorkerd } from './runtimes.js';
import { checkout, runtimeChecks } from './scenario.js';

/** workerd `1.YYYYMMDD.n` supports compatibility dates up to its own build date. */
const version: string = createRequire(import.meta.url)('@cloudflare/workerd-linux-64/package.json').version;
const CURRENT = version.replace(/^1\.(\d{4})(\d{2})(\d{2})\.\d+$/, '$1-$2-$3');
/** Before 2025-05-05, the date from which Workers have `WeakRef` and `FinalizationRegistry`. */
const BEFORE_WEAKREF = '2024-09-23';

const TEXT_WARNING = 'Called .text() on an HTTP body which does not appear to be text';

describe.each([
  { date: CURRENT, weakRef: 'function' },
  { date: BEFORE_WEAKREF, weakRef: 'undefined' },
])('workerd at compatibility date $date', ({ date, weakRef }) => {
  const checks = runtimeChecks((config) => startWorkerd(config, date));

  it(`runs the worker where typeof WeakRef is '${weakRef}'`, async () => {
    const reply = await fetch(`${checks.runtime().url}/globals`);
    expect(await reply.json()).toEqual({ WeakRef: weakRef });
  });

  it("reads Provider R's form-encoded status replies without workerd's warning", async () => {
    const { r } = checks.simulators();
    const runtime = checks.runtime();
    const statusReads = () => r.requests.filter((request) => request.path === '/v1.0/status').length;
    const opened = await checkout(runtime, 'provider-r');
    r.forwardWebhooks(`${runtime.url}/webhooks/provider-r`);
    const readsBefore = statusReads();
    await r.payer.pay(opened.paymentId);
    expect(r.deliveries?.at(-1)?.state).toBe('delivered');
    // The push is confirmed by a status call, whose reply is form-encoded (docs/providers/provider-r.md#status).
    expect(statusReads()).toBe(readsBefore + 1);
    expect(runtime.output()).not.toContain(TEXT_WARNING);
  });
});
