import { packageBuild } from '@pay/tooling/tsup';

// `cli.ts` starts with a `#!/usr/bin/env node` line, which the build keeps (and marks the file executable).
export default packageBuild({ index: 'src/index.ts', cli: 'src/cli.ts' });
