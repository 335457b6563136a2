/**
 * Configuration helpers for adapter factories (docs/architecture.md#configuration): the environment is read when a
 * default factory is called, never on import. Values are never copied into errors.
 */
import * as v from 'valibot';
import type { Logger } from './diagnostics/logger.js';
import type { ValidationIssue } from './errors.js';
import { ConfigurationError } from './errors.js';
import type { TokenStore } from './stores.js';

/** One environment variable a default factory reads. */
export interface EnvVariable<Member extends string = string> {
  env: string;
  member: Member;
  required: boolean;
  /**
   * How {@link readProviderConfig} reads the variable: `string` (default, as written), `boolean` (strictly, see
   * {@link booleanSetting}) or `list` (comma-separated and trimmed; several items become an array: keys given
   * during a rotation). An explicit member is taken as given.
   */
  kind?: 'string' | 'boolean' | 'list';
}

/** The process environment where one exists (Node, Bun, Deno's Node mode); empty on runtimes without one. */
function processEnv(): Record<string, string | undefined> {
  return (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env ?? {};
}

/** Reads the variables, each explicit override winning; one `ConfigurationError` names every one missing. */
export function readEnvironment<Member extends string>(
  provider: string,
  variables: readonly EnvVariable<Member>[],
  overrides: Partial<Record<Member, unknown>> = {},
  env: Record<string, string | undefined> = processEnv(),
): Partial<Record<Member, unknown>> {
  const values: Partial<Record<Member, unknown>> = {};
  const missing: EnvVariable<Member>[] = [];
  for (const variable of variables) {
    const value = overrides[variable.member] ?? (env[variable.env] === '' ? undefined : env[variable.env]);
    if (value === undefined && variable.required) missing.push(variable);
    else if (value !== undefined) values[variable.member] = value;
  }
  if (missing.length > 0) {
    const list = missing
      .map((variable) => `${variable.env} (or the config member \`${variable.member}\`)`)
      .join(', ');
    throw new ConfigurationError(`${provider} is not configured: set ${list}.`, {
      missing: missing.map((variable) => variable.env),
    });
  }
  return values;
}

/** Reads a boolean switch: `true`/`false` (any case) or a boolean; anything else is a `ConfigurationError`. */
export function booleanSetting(name: string, value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value.trim()))
    return value.trim().toLowerCase() === 'true';
  throw new ConfigurationError(`${name} must be true or false.`, { missing: [name] });
}

/** A `list` variable's value: one item as a string, several as an array, each trimmed. */
function listSetting(value: string): string | string[] {
  const items = value.split(',').map((item) => item.trim());
  return items.length === 1 ? items[0]! : items;
}

/**
 * A secret or credential (API key, client secret, merchant secret, webhook secret): a string with its surrounding
 * white space trimmed, blank refused. The trimmed value is the one used from then on: check, then use exactly the
 * checked value (docs/architecture.md#configuration).
 */
export const credentialSchema = v.pipe(
  v.string('must be a string'),
  v.trim(),
  v.minLength(1, 'must not be empty or blank'),
);

/** Validates an explicit config object; issues name the members, never their values. */
export function parseConfig<S extends v.GenericSchema>(
  provider: string,
  schema: S,
  config: unknown,
): v.InferOutput<S> {
  const result = v.safeParse(schema, config, { abortEarly: false });
  if (result.success) return result.output;
  const issues = configIssues(schema, result.issues);
  throw new ConfigurationError(
    `${provider} configuration is invalid: ${issues.map((issue) => `\`${issue.path || '(config)'}\` ${issue.message}`).join('; ')}.`,
    { missing: [...new Set(issues.map((issue) => issue.path))] },
  );
}

const ONE_OF_DOCUMENTED = 'must be one of the documented values';
/**
 * What a value of each schema type must be, in the words of a configuration error: the validation library's own
 * text names neither the member nor what to write, and can quote the value (docs/architecture.md#configuration).
 */
const EXPECTED_TYPES = new Map<string, string>([
  ['string', 'must be a non-empty string'],
  ['number', 'must be a number'],
  ['boolean', 'must be true or false'],
  ['array', 'must be a list'],
  ['function', 'must be a function'],
  ...['object', 'strict_object', 'loose_object'].map((type) => [type, 'must be an object'] as const),
  ...['picklist', 'literal', 'union', 'variant', 'enum'].map((type) => [type, ONE_OF_DOCUMENTED] as const),
]);

/** Plain messages for the validation library's built-in checks, from the check's requirement only. */
const EXPECTED_CHECKS = new Map<string, (requirement: unknown) => string>([
  ['min_length', (n) => `must be at least ${n} characters long`],
  ['max_length', (n) => `must be at most ${n} characters long`],
  ['length', (n) => `must be exactly ${n} characters long`],
  ['non_empty', () => 'must not be empty'],
  ['integer', () => 'must be a whole number'],
  ['min_value', (n) => `must be at least ${n}`],
  ['max_value', (n) => `must be at most ${n}`],
  ['url', () => 'must be an absolute URL'],
  ['regex', () => 'does not have the expected format'],
]);

/** The schema a config member is checked with, through optional/nullable wrappers; undefined when unknown. */
function memberSchema(schema: unknown, keys: readonly string[]): { type?: unknown } | undefined {
  let current = schema as
    | { type?: unknown; entries?: Record<string, unknown>; wrapped?: unknown }
    | undefined;
  const unwrap = () => {
    while (current && current.wrapped !== undefined) current = current.wrapped as typeof current;
  };
  for (const key of keys) {
    unwrap();
    const entries = current?.entries;
    if (!entries || !Object.hasOwn(entries, key)) return undefined;
    current = entries[key] as typeof current;
  }
  unwrap();
  return current;
}

/** The validation library's issues in plain words; messages the schemas set themselves are kept. */
function configIssues(schema: v.GenericSchema, issues: readonly v.BaseIssue<unknown>[]): ValidationIssue[] {
  return issues.map((issue) => {
    const keys = (issue.path ?? []).map((item) => String((item as { key: unknown }).key));
    const path = keys.join('.');
    if (!issue.message.startsWith('Invalid ')) return { path, message: issue.message };
    if (issue.kind === 'schema' && issue.expected === 'never')
      return { path, message: 'is not a known member' };
    if (issue.kind === 'schema') {
      // A missing member is reported on its parent object: what it must be is its own schema's type.
      const own = issue.received === 'undefined' ? memberSchema(schema, keys) : undefined;
      const type = String(own?.type ?? issue.type);
      const expected = EXPECTED_TYPES.get(type);
      return { path, message: expected ?? 'is not valid' };
    }
    const check = EXPECTED_CHECKS.get(issue.type);
    return { path, message: check ? check(issue.requirement) : 'is not valid' };
  });
}

const hookSchema = v.optional(
  v.custom<NonNullable<unknown>>((value) => typeof value === 'function', 'must be a function'),
);

/** Transport members every adapter config accepts, for adapters' config schemas. */
export const transportConfigEntries = {
  baseUrl: v.optional(v.pipe(v.string(), v.url('must be an absolute URL'))),
  fetch: v.optional(
    v.custom<typeof fetch>((value) => typeof value === 'function', 'must be a fetch function'),
  ),
  timeoutMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1, 'must be at least 1 ms'))),
  retry: v.optional(
    v.pipe(v.number(), v.integer('must be a whole number'), v.minValue(0, 'must be 0 or more')),
  ),
  tokenStore: v.optional(
    v.custom<TokenStore>(
      (value) =>
        typeof value === 'object' &&
        value !== null &&
        ['get', 'set', 'delete'].every(
          (method) => typeof (value as Record<string, unknown>)[method] === 'function',
        ),
      'must be a TokenStore (get, set, delete)',
    ),
  ),
  logger: v.optional(
    v.custom<Logger>(
      (value) => typeof value === 'object' && value !== null,
      'must be a logger (an object with debug, info, warn and/or error methods, e.g. console)',
    ),
  ),
  hooks: v.optional(v.object({ onRequest: hookSchema, onResponse: hookSchema, onHookError: hookSchema })),
};

/** What {@link readProviderConfig} reads. */
export interface ProviderConfigSource<S extends v.GenericSchema, Member extends string> {
  /** The provider, as configuration errors name it (`'providerN'`). */
  provider: string;
  /** The prefix of the provider's variables (`'PROVIDER_N'`): `<prefix>_BASE_URL` overrides `baseUrl`. */
  envPrefix: string;
  /** The variables the default factory reads, with the config member each one replaces. */
  variables: readonly EnvVariable<Member>[];
  /** The explicit config schema (with `transportConfigEntries`): the merged config is validated against it. */
  schema: S;
  /** The explicit options: each member wins over its variable; members without a variable pass through. */
  overrides?: Readonly<Record<string, unknown>>;
  /** The environment (default: the process environment, read now, never on import). */
  env?: Record<string, string | undefined>;
}

/** Every variable an adapter's default factory reads: its own, then `<prefix>_BASE_URL → baseUrl` unless listed. */
export function providerVariables<Member extends string>(
  envPrefix: string,
  variables: readonly EnvVariable<Member>[],
): readonly EnvVariable<Member | 'baseUrl'>[] {
  if (variables.some((variable) => variable.member === 'baseUrl')) return variables;
  return [...variables, { env: `${envPrefix}_BASE_URL`, member: 'baseUrl', required: false }];
}

/**
 * Loads an adapter's configuration: the environment (now, not on import) plus the explicit options, each explicit
 * member winning over its variable, validated against the config schema. Throws one `ConfigurationError` naming
 * every missing variable (with the member that replaces it) or each invalid member; values are never quoted.
 */
export function readProviderConfig<S extends v.GenericSchema, Member extends string>(
  source: ProviderConfigSource<S, Member>,
): v.InferOutput<S> {
  const overrides = source.overrides ?? {};
  if (typeof overrides !== 'object' || overrides === null || Array.isArray(overrides)) {
    throw new ConfigurationError(`${source.provider} configuration must be an object of options.`, {
      missing: ['(config)'],
    });
  }
  const variables = providerVariables(source.envPrefix, source.variables);
  const given = Object.fromEntries(
    Object.entries(overrides).filter(([, value]) => value !== undefined),
  ) as Partial<Record<Member | 'baseUrl', unknown>>;
  const values = readEnvironment(source.provider, variables, given, source.env ?? processEnv());
  const config: Record<string, unknown> = { ...given };
  for (const variable of variables) {
    if (!Object.hasOwn(values, variable.member)) continue;
    const value = values[variable.member];
    const fromEnv = !Object.hasOwn(given, variable.member);
    config[variable.member] =
      variable.kind === 'boolean'
        ? booleanSetting(fromEnv ? variable.env : variable.member, value)
        : variable.kind === 'list' && fromEnv
          ? listSetting(String(value))
          : value;
  }
  return parseConfig(source.provider, source.schema, config);
}
