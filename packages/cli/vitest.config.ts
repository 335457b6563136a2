import { packageTests } from '@pay/tooling/vitest';

export default packageTests({
  // The child-process test starts Node and a simulator: give it room on a loaded two-core machine.
  testTimeout: 60_000,
  // `pay` finds an adapter's `./testing` entry as Node resolves it; with this condition the workspace adapters
  // resolve to their sources, as every other import of the tests does (no build needed).
  execArgv: ['--conditions=@pay/source'],
});
