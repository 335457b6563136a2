/** `@pay/cli`: the `pay` command as a function, for scripts and tests (`main(['dev', 'provider-n'], io)`). */

export { type CliIo, UsageError } from './command-line.js';
export { DEFAULT_PORT } from './dev.js';
export { main, USAGE } from './main.js';
export { DEFAULT_DEV_URL } from './trigger.js';
