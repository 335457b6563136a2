import { packageTests } from '@pay/tooling/vitest';

export default packageTests();
