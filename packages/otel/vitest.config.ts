import { packageTests } from '@pay/tooling/vitest';

const config = packageTests();
// OpenTelemetry's packages publish a bundler-only build under the `module` condition (extensionless imports that
// Node cannot load), so packages resolve here as Node resolves them for an application: without `module`.
const conditions = ['@pay/source', 'node', 'import', 'default'];
if (config.resolve) config.resolve.conditions = conditions;
if (config.ssr?.resolve) Object.assign(config.ssr.resolve, { conditions, externalConditions: conditions });

export default config;
