import { packageBuild } from '@pay/tooling/tsup';

export default packageBuild({
  index: 'src/index.ts',
  adapter: 'src/adapter-toolkit.ts',
  schema: 'src/schema.ts',
  'testing/index': 'src/testing/index.ts',
  'testing/contract': 'src/testing/contract.ts',
});
