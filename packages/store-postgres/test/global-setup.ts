// Starts one PostgreSQL server (the shared throwaway harness of @pay/tooling) for every test file and stops it after
// the run, also when tests failed.
import { startPostgres } from '@pay/tooling/servers/postgres';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startPostgres({ database: 'pay_store_test' });
  project.provide('postgresUrl', server.url());
  return () => server.stop();
}
