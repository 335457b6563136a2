/**
 * The `logger` option (docs/architecture.md#logger): silent by default, console-compatible, every line redacted
 * (configured secrets in every spelling, credentials a live HTTP client sent), and a logger that throws changes
 * nothing.
 */
import { describe, expect, it, vi } from 'vitest';
import { ambientLogger, createLogger, SILENT_LOGGER, withinLogger } from '../src/diagnostics/logger.js';
import { ProviderApiError } from '../src/errors.js';
import { CredentialSet } from '../src/redaction.js';

const SECRET = 'sk_live_LOGGER/SECRET+0xBEEF';

function spellings(secret: string): string[] {
  return [secret, encodeURIComponent(secret), btoa(secret), JSON.stringify(secret).slice(1, -1)];
}

function sink() {
  const lines: unknown[][] = [];
  const logger = {
    debug: vi.fn((...args: unknown[]) => lines.push(['debug', ...args])),
    info: vi.fn((...args: unknown[]) => lines.push(['info', ...args])),
    warn: vi.fn((...args: unknown[]) => lines.push(['warn', ...args])),
    error: vi.fn((...args: unknown[]) => lines.push(['error', ...args])),
  };
  return { logger, lines };
}

describe('createLogger', () => {
  it('is silent without a logger, and never builds the details', () => {
    const details = vi.fn(() => ({}));
    const log = createLogger(undefined, [SECRET]);
    expect(log).toBe(SILENT_LOGGER);
    log.warn('x', details);
    log.once('k', 'warn', 'x', details);
    expect(details).not.toHaveBeenCalled();
    expect(log.enabled('warn')).toBe(false);
  });

  it('redacts every configured secret in every spelling, in the line and in its details', () => {
    const { logger, lines } = sink();
    const log = createLogger(logger, [SECRET]);
    for (const spelling of spellings(SECRET)) {
      const error = new ProviderApiError({
        provider: 'providerN',
        status: 401,
        providerMessage: `bad key ${spelling}`,
      });
      log.error(`the store failed after ${spelling}`, () => ({
        error,
        header: `Basic ${spelling}`,
        nested: { a: [spelling] },
      }));
      // The caller's error object is not rewritten by logging it.
      expect(error.providerMessage).toBe(`bad key ${spelling}`);
    }
    const written = JSON.stringify(lines);
    expect(lines).toHaveLength(4);
    for (const spelling of spellings(SECRET))
      expect(written).not.toContain(JSON.stringify(spelling).slice(1, -1));
    expect(lines[0]).toEqual([
      'error',
      '@pay: the store failed after [REDACTED]',
      {
        error: expect.objectContaining({ name: 'ProviderApiError', providerMessage: 'bad key [REDACTED]' }),
        header: 'Basic [REDACTED]',
        nested: { a: ['[REDACTED]'] },
      },
    ]);
  });

  it('redacts credentials an HTTP client sent, read when the line is written', () => {
    const { logger, lines } = sink();
    const credentials = new CredentialSet([]);
    const log = createLogger(logger, () => credentials.values());
    credentials.addAuthorization('Bearer tok_issued_after_the_logger_was_made');
    log.debug('retrying with tok_issued_after_the_logger_was_made');
    expect(lines).toEqual([['debug', '@pay: retrying with [REDACTED]']]);
  });

  it('builds details only for a level the logger has, and works with console-like objects missing levels', () => {
    const warn = vi.fn();
    const log = createLogger({ warn }, []);
    const details = vi.fn(() => ({ call: 'commit-transaction' }));
    log.debug('not logged', details);
    expect(details).not.toHaveBeenCalled();
    expect(log.enabled('debug')).toBe(false);
    log.warn('logged', details);
    expect(warn).toHaveBeenCalledWith('@pay: logged', { call: 'commit-transaction' });
  });

  it('logs a once-only line once per application logger, across instances', () => {
    const { logger, lines } = sink();
    createLogger(logger).once('memory-store', 'warn', 'in-memory store in production');
    createLogger(logger).once('memory-store', 'warn', 'in-memory store in production');
    createLogger(logger).once('other', 'warn', 'another warning');
    expect(lines).toEqual([
      ['warn', '@pay: in-memory store in production'],
      ['warn', '@pay: another warning'],
    ]);
  });

  it('ignores a logger that throws', () => {
    const log = createLogger({
      error() {
        throw new Error('disk full');
      },
    });
    expect(() => log.error('store failed', () => ({ step: 'complete' }))).not.toThrow();
  });
});

describe('withinLogger', () => {
  it('is the logger of code that has none of its own, across awaits, and only inside', async () => {
    const { logger, lines } = sink();
    const log = createLogger(logger);
    await withinLogger(log, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      ambientLogger().debug('retrying a read');
    });
    ambientLogger().debug('outside: silent');
    expect(ambientLogger()).toBe(SILENT_LOGGER);
    expect(lines).toEqual([['debug', '@pay: retrying a read']]);
  });
});
