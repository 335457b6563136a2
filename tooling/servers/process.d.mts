/**
 * A loopback port nobody listens on right now (the kernel's pick for port 0). Another process may take it before
 * the server binds it: callers retry their start on a fresh port when the bind fails.
 */
export function freePort(): Promise<number>;

/**
 * A process killed outright (SIGKILL, a closed output pipe) runs no exit handler, and a server it started would
 * outlive it. A detached shell waits for process `owner` to end, then runs `cleanup` (a shell command reading its
 * arguments as "$1"…), which must be a no-op after a normal stop.
 */
export function cleanUpAfterDeathOf(owner: number, cleanup: string, args: string[]): void;
