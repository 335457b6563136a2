import { packageTests } from '@pay/tooling/vitest';

// A headless Chromium start plus a page load per test: generous on a loaded two-core machine.
export default packageTests({
  testTimeout: 60_000,
  hookTimeout: 60_000,
  // `pay dev` (test/event-log.test.ts) finds the adapter's `./testing` entry as Node resolves it: with this
  // condition the workspace adapters resolve to their sources, as every other import of the tests does.
  execArgv: ['--conditions=@pay/source'],
});
