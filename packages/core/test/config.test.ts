import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  parseConfig,
  providerVariables,
  readProviderConfig,
  transportConfigEntries,
} from '../src/adapter-toolkit.js';
import { booleanSetting, readEnvironment } from '../src/config.js';
import { ConfigurationError } from '../src/index.js';
import * as v from '../src/schema.js';

const variables = [
  { env: 'PROVIDER_R_MERCHANT', member: 'merchant', required: true },
  { env: 'PROVIDER_R_SECRET', member: 'secret', required: true },
  { env: 'PROVIDER_R_SANDBOX', member: 'isSandbox', required: true },
  { env: 'PROVIDER_R_LABEL', member: 'label', required: false },
] as const;

describe('configuration helpers', () => {
  it('names every missing variable and the member that replaces it, in one error', () => {
    const error = (() => {
      try {
        readEnvironment('providerR', variables, {}, { PROVIDER_R_SECRET: 'sk_hidden_value' });
      } catch (e) {
        return e as ConfigurationError;
      }
    })();
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error?.missing).toEqual(['PROVIDER_R_MERCHANT', 'PROVIDER_R_SANDBOX']);
    expect(error?.message).toContain('PROVIDER_R_MERCHANT (or the config member `merchant`)');
    expect(error?.message).not.toContain('sk_hidden_value');
  });

  it('lets explicit overrides win over the environment', () => {
    const values = readEnvironment(
      'providerR',
      variables,
      { merchant: 'explicit' },
      {
        PROVIDER_R_MERCHANT: 'from-env',
        PROVIDER_R_SECRET: 's',
        PROVIDER_R_SANDBOX: 'true',
      },
    );
    expect(values).toEqual({ merchant: 'explicit', secret: 's', isSandbox: 'true' });
  });

  it('treats an empty variable as missing', () => {
    expect(() =>
      readEnvironment(
        'providerR',
        variables,
        {},
        { PROVIDER_R_MERCHANT: '', PROVIDER_R_SECRET: 's', PROVIDER_R_SANDBOX: 'false' },
      ),
    ).toThrow(/PROVIDER_R_MERCHANT/);
  });

  it('reads sandbox switches strictly, never falling back to production silently', () => {
    expect(booleanSetting('PROVIDER_R_SANDBOX', 'true')).toBe(true);
    expect(booleanSetting('PROVIDER_R_SANDBOX', 'FALSE')).toBe(false);
    expect(booleanSetting('PROVIDER_R_SANDBOX', true)).toBe(true);
    expect(() => booleanSetting('PROVIDER_R_SANDBOX', 'yes')).toThrow(ConfigurationError);
  });

  it('never repeats a wrongly typed value, which could be a secret, in the error', () => {
    const schema = v.object({ secret: v.string() });
    const error = (() => {
      try {
        parseConfig('providerR', schema, { secret: 987654321 });
      } catch (e) {
        return e as ConfigurationError;
      }
    })();
    expect(error?.message).toContain('secret');
    expect(error?.message).not.toContain('987654321');
  });

  it('validates explicit config naming members, never values', () => {
    const schema = v.object({ merchant: v.string(), secret: v.pipe(v.string(), v.minLength(8)) });
    const error = (() => {
      try {
        parseConfig('providerR', schema, { merchant: 42, secret: 'short' });
      } catch (e) {
        return e as ConfigurationError;
      }
    })();
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error?.missing).toEqual(['merchant', 'secret']);
    expect(error?.message).not.toContain('short');
  });
});

describe('configuration errors in plain words (docs/architecture.md#configuration)', () => {
  function configError(schema: v.GenericSchema, config: unknown): ConfigurationError {
    try {
      parseConfig('providerN', schema, config);
    } catch (e) {
      return e as ConfigurationError;
    }
    throw new Error('expected a ConfigurationError');
  }

  it("names each member and what it must be, never the validation library's own wording", () => {
    const schema = v.object({
      apiKey: v.string(),
      isSandbox: v.boolean(),
      ...transportConfigEntries,
    });
    const error = configError(schema, { isSandbox: 'yes', timeoutMs: 2.5, retry: -1 });
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect(error.missing).toEqual(['apiKey', 'isSandbox', 'timeoutMs', 'retry']);
    expect(error.message).toContain('`apiKey` must be a non-empty string');
    expect(error.message).toContain('`isSandbox` must be true or false');
    expect(error.message).toContain('`timeoutMs` must be a whole number');
    expect(error.message).toContain('`retry` must be 0 or more');
    expect(error.message).not.toMatch(/Invalid|Expected|received|undefined/);
  });

  it('says a strict config has an unknown member, and what a too-short value must be', () => {
    const schema = v.strictObject({ secretKey: v.pipe(v.string(), v.minLength(8)) });
    const error = configError(schema, { secretKey: 'short', secretkey: 'x' });
    expect(error.message).toContain('`secretKey` must be at least 8 characters long');
    expect(error.message).toContain('`secretkey` is not a known member');
    expect(error.message).not.toMatch(/Invalid|Expected|received|short/);
  });
});

describe('transport config: the hook error channel (docs/architecture.md#http-client)', () => {
  const schema = v.object({ ...transportConfigEntries });

  it('accepts hooks.onHookError as a function and refuses anything else, naming the member', () => {
    expect(() => parseConfig('providerN', schema, { hooks: { onHookError: () => {} } })).not.toThrow();
    const error = (() => {
      try {
        parseConfig('providerN', schema, { hooks: { onHookError: 'log it' } });
      } catch (e) {
        return e as ConfigurationError;
      }
    })();
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect(error?.missing).toEqual(['hooks.onHookError']);
  });
});

describe('the root README quick start (docs/architecture.md#configuration)', () => {
  it('lists every variable the live Provider N API needs, in the README and in its tested mirror', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const quickStart = readme.slice(
      readme.indexOf('## Quick start'),
      readme.indexOf('\n## ', readme.indexOf('## Quick start') + 1),
    );
    const mirror = readFileSync(
      new URL('../../../examples/demo/src/readme-snippets.ts', import.meta.url),
      'utf8',
    );
    const mirrored = mirror.slice(mirror.indexOf('export async function quickStart'));
    for (const variable of [
      'PROVIDER_N_API_KEY',
      'PROVIDER_N_SECRET_KEY',
      'PROVIDER_N_SANDBOX',
      'PROVIDER_N_CONTRACT_CODE',
    ]) {
      expect(quickStart).toContain(variable);
      expect(mirrored).toContain(variable);
    }
  });
});

describe('readProviderConfig: one way to load an adapter configuration', () => {
  const schema = v.strictObject({
    merchant: v.pipe(v.string(), v.minLength(1)),
    secret: v.pipe(v.string(), v.minLength(1)),
    isSandbox: v.boolean(),
    label: v.optional(v.string()),
    ...transportConfigEntries,
  });
  const source = {
    provider: 'providerR',
    envPrefix: 'PROVIDER_R',
    variables: [
      { env: 'PROVIDER_R_MERCHANT', member: 'merchant', required: true },
      { env: 'PROVIDER_R_SECRET', member: 'secret', required: true },
      { env: 'PROVIDER_R_SANDBOX', member: 'isSandbox', required: true, kind: 'boolean' },
      { env: 'PROVIDER_R_LABEL', member: 'label', required: false },
    ],
    schema,
  } as const;
  const env = { PROVIDER_R_MERCHANT: 'M1', PROVIDER_R_SECRET: 'sk_hidden_value', PROVIDER_R_SANDBOX: 'TRUE' };

  it('reads the environment, booleans strictly, and lets explicit options win', () => {
    expect(readProviderConfig({ ...source, env })).toEqual({
      merchant: 'M1',
      secret: 'sk_hidden_value',
      isSandbox: true,
    });
    expect(
      readProviderConfig({ ...source, env, overrides: { merchant: 'M2', isSandbox: false, timeoutMs: 500 } }),
    ).toEqual({ merchant: 'M2', secret: 'sk_hidden_value', isSandbox: false, timeoutMs: 500 });
  });

  it('takes <PREFIX>_BASE_URL as the baseUrl (pay dev without code changes); an explicit baseUrl wins', () => {
    const local = { ...env, PROVIDER_R_BASE_URL: 'http://127.0.0.1:4010' };
    expect(readProviderConfig({ ...source, env: local }).baseUrl).toBe('http://127.0.0.1:4010');
    expect(
      readProviderConfig({ ...source, env: local, overrides: { baseUrl: 'https://proxy.example' } }).baseUrl,
    ).toBe('https://proxy.example');
    expect(readProviderConfig({ ...source, env }).baseUrl).toBeUndefined();
  });

  it('names every missing variable in one error, and a bad value in plain words without quoting it', () => {
    expect(() => readProviderConfig({ ...source, env: { PROVIDER_R_SECRET: 'sk_hidden_value' } })).toThrow(
      expect.objectContaining({ missing: ['PROVIDER_R_MERCHANT', 'PROVIDER_R_SANDBOX'] }),
    );
    const sandbox = (() => {
      try {
        readProviderConfig({ ...source, env: { ...env, PROVIDER_R_SANDBOX: 'yes' } });
      } catch (error) {
        return error as ConfigurationError;
      }
    })();
    expect(sandbox?.message).toBe('PROVIDER_R_SANDBOX must be true or false.');
    const url = (() => {
      try {
        readProviderConfig({ ...source, env: { ...env, PROVIDER_R_BASE_URL: '127.0.0.1 port 4010' } });
      } catch (error) {
        return error as ConfigurationError;
      }
    })();
    expect(url).toBeInstanceOf(ConfigurationError);
    expect(url?.message).toBe('providerR configuration is invalid: `baseUrl` must be an absolute URL.');
    expect(url?.message).not.toContain('sk_hidden_value');
  });
});

describe("readProviderConfig: a 'list' variable (keys during a rotation)", () => {
  const schema = v.strictObject({
    keys: v.union([v.string(), v.array(v.string())]),
    ...transportConfigEntries,
  });
  const source = {
    provider: 'providerX',
    envPrefix: 'PROVIDER_X',
    variables: [{ env: 'PROVIDER_X_KEYS', member: 'keys', required: true, kind: 'list' }],
    schema,
  } as const;

  it('reads one item as a string, several comma-separated as a trimmed list, an explicit member as given', () => {
    expect(readProviderConfig({ ...source, env: { PROVIDER_X_KEYS: ' key-1 ' } })).toEqual({ keys: 'key-1' });
    expect(readProviderConfig({ ...source, env: { PROVIDER_X_KEYS: 'key-new, key-old' } })).toEqual({
      keys: ['key-new', 'key-old'],
    });
    expect(
      readProviderConfig({ ...source, env: { PROVIDER_X_KEYS: 'a,b' }, overrides: { keys: 'x,y' } }),
    ).toEqual({ keys: 'x,y' });
  });
});

describe('providerVariables: every variable a default factory reads', () => {
  const table = [
    { env: 'PROVIDER_X_KEY', member: 'key', required: true },
    { env: 'PROVIDER_X_SANDBOX', member: 'isSandbox', required: true, kind: 'boolean' as const },
  ];

  it('is the table followed by <prefix>_BASE_URL for baseUrl, which is never required', () => {
    expect(providerVariables('PROVIDER_X', table)).toEqual([
      ...table,
      { env: 'PROVIDER_X_BASE_URL', member: 'baseUrl', required: false },
    ]);
  });

  it('is the table as it is when it already lists baseUrl (no second row)', () => {
    const listed = [...table, { env: 'PROVIDER_X_BASE_URL', member: 'baseUrl', required: false }];
    expect(providerVariables('PROVIDER_X', listed)).toBe(listed);
  });
});
