/** `@pay/cli`: the `pay` command as a function, for scripts and tests (`main(['dev', 'provider-n'], io)`). */

export { DEFAULT_PORT } from './dev.js';
export { type CliIo, main, USAGE, UsageError } from './main.js';
export { PROVIDERS, type SimulatedProvider } from './providers.js';
export { DEFAULT_DEV_URL } from './trigger.js';
