import { fileURLToPath } from 'node:url';

// The workspace root: the app's packages (@pay/*, next) are symlinks into the repository's pnpm store.
const root = fileURLToPath(new URL('../../..', import.meta.url));

/** @type {import('next').NextConfig} */
export default {
  turbopack: { root },
  outputFileTracingRoot: root,
};
