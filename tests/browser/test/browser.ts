/**
 * Headless Chromium from the distribution (`apt-get install -y chromium`), driven by playwright-core, which
 * downloads no browser of its own. `CHROMIUM_PATH` overrides the lookup.
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/lib/chromium/chromium'];

/** The Chromium binary to drive, or `undefined` when none is installed. */
export const chromiumPath: string | undefined = [process.env.CHROMIUM_PATH, ...CANDIDATES].find(
  (candidate): candidate is string =>
    typeof candidate === 'string' && candidate !== '' && existsSync(candidate),
);

/** Why the browser tests are skipped, when they are. */
export const skipReason = chromiumPath
  ? undefined
  : `no Chromium binary (looked for CHROMIUM_PATH and ${CANDIDATES.join(', ')}): apt-get install -y chromium`;

/** Starts headless Chromium (no sandbox: CI runs as root). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
}

/** One headless Chromium for the tests of the calling `describe`: started before them, closed after them. */
export function chromiumForTests(): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  return () => {
    if (!browser) throw new Error('Chromium did not start.');
    return browser;
  };
}

/** Width and height from a PNG's IHDR chunk, after checking the PNG signature. */
export function pngSize(png: Uint8Array): { width: number; height: number } {
  const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (!signature.every((byte, index) => png[index] === byte)) throw new Error('not a PNG');
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  if (String.fromCharCode(...png.subarray(12, 16)) !== 'IHDR') throw new Error('PNG without IHDR');
  return { width: view.getUint32(16), height: view.getUint32(20) };
}
