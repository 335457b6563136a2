/**
 * The signing key `pay dev` keeps between runs, for a simulator whose descriptor asks for one (`keptSigningKey`,
 * docs/architecture.md#simulator-descriptor): Provider T signs its webhooks with an RSA key and the app verifies
 * them with the public half (`PROVIDER_T_WEBHOOK_PUBLIC_KEY`); a key made anew at each start would make every
 * delivery to an app configured from an earlier run fail verification. So `pay dev` keeps the key in a file: the
 * private key as PKCS#8 PEM, mode 0600 in a 0700 directory, made on the first run and read on the next. The key is
 * a simulator key, made on this machine and never sent anywhere: it signs only what the simulator sends, and an
 * app in production verifies with the key the provider publishes, never this one.
 *
 * The directory: `--state <dir>`, else the user's cache directory (`$XDG_CACHE_HOME/pay`, default
 * `~/.cache/pay`; `~/Library/Caches/pay` on macOS; `%LOCALAPPDATA%\pay` on Windows).
 */
import type { KeptSigningKey } from '@pay/core/testing';

/** The directory `pay dev` keeps its state in when no `--state` is given: `<user cache directory>/pay`. */
export function defaultStateDirectory(env: Record<string, string | undefined>): string {
  const { join, isAbsolute } = process.getBuiltinModule('node:path');
  const home = env.HOME || process.getBuiltinModule('node:os').homedir();
  if (process.platform === 'win32') return join(env.LOCALAPPDATA || join(home, 'AppData', 'Local'), 'pay');
  if (process.platform === 'darwin') return join(home, 'Library', 'Caches', 'pay');
  const xdg = env.XDG_CACHE_HOME;
  // The XDG rule: a relative value is ignored.
  return join(xdg && isAbsolute(xdg) ? xdg : join(home, '.cache'), 'pay');
}

/**
 * The signing key `key` describes, kept in `directory/<key.file>`: read when the file exists, else made and written
 * (exclusively, mode 0600, so two runs starting at once end up with the same key). Returns the private key (PKCS#8
 * PEM), the key file (absolute) and whether this run made it (the app must be given the public key once). Throws an
 * Error naming the file when it cannot be used: readable by other users (POSIX), or not a PEM private key of the
 * key's type.
 */
export function keptSigningKey(directory: string, key: KeptSigningKey) {
  const fs = process.getBuiltinModule('node:fs');
  const { resolve } = process.getBuiltinModule('node:path');
  const file = resolve(directory, key.file);
  fs.mkdirSync(resolve(directory), { recursive: true, mode: 0o700 });
  if (!fs.existsSync(file)) {
    const privateKey = key.generate();
    try {
      fs.writeFileSync(file, privateKey, { mode: 0o600, flag: 'wx' });
      return { privateKey, file, made: true };
    } catch (error) {
      // Another pay dev wrote it first: use that one, so both sign with the same key.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return { privateKey: readSigningKey(file, key.type), file, made: false };
}

/** The private key of an existing key file, or an Error saying what to do about the file. */
function readSigningKey(file: string, type: string): string {
  const fs = process.getBuiltinModule('node:fs');
  const mode = fs.statSync(file).mode & 0o777;
  if (process.platform !== 'win32' && (mode & 0o077) !== 0)
    throw new Error(
      `${file} holds pay dev's signing key and other users can read it (mode ${mode.toString(8)}): run chmod 600 ${file}.`,
    );
  const privateKey = fs.readFileSync(file, 'utf8');
  const { createPrivateKey } = process.getBuiltinModule('node:crypto');
  let unreadable: ErrorOptions = {};
  try {
    if (createPrivateKey(privateKey).asymmetricKeyType === type) return privateKey;
  } catch (error) {
    unreadable = { cause: error };
  }
  throw new Error(
    `${file} is not a PEM ${type.toUpperCase()} private key: delete it and pay dev makes a new key (then give your app the new public key it prints).`,
    unreadable,
  );
}
