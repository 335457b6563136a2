/** The built packages on Bun (from `@oven/bun-linux-x64`): see `scenario.ts` for what is checked. */
import { describe } from 'vitest';
import { startBun } from './runtimes.js';
import { runtimeChecks } from './scenario.js';

describe('Bun', () => {
  runtimeChecks(startBun);
});
