import { packageBuild } from '@pay/tooling/tsup';

export default packageBuild({ index: 'src/index.ts' });
