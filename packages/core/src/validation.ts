/** Turns valibot results into {@link ValidationError}s that name each offending field. */
import * as v from 'valibot';
import { ValidationError, type ValidationIssue } from './errors.js';

/** Dotted path of a valibot issue (`provider_metadata.sender.name`). */
function issuePath(issue: v.BaseIssue<unknown>): string {
  return (issue.path ?? []).map((item) => String((item as { key: unknown }).key)).join('.');
}

/** Converts valibot issues, prefixing each path with `prefix` (e.g. `provider_metadata`). */
export function toValidationIssues(issues: readonly v.BaseIssue<unknown>[], prefix = ''): ValidationIssue[] {
  return issues.map((issue) => {
    const path = [prefix, issuePath(issue)].filter(Boolean).join('.');
    const unknownKey =
      issue.kind === 'schema' && issue.type === 'strict_object' && issue.expected === 'never';
    // valibot's default messages end with the value received ("… but received \"sk_live_…\"", or
    // "Invalid integer: Received 2.5"): the value may be a secret or personal data, so only the expectation is kept.
    return {
      path,
      message: unknownKey
        ? 'is not a known field'
        : issue.message.replace(/ but received [\s\S]*$|: Received [\s\S]*$/i, ''),
    };
  });
}

/**
 * Key names that JavaScript objects treat specially: a schema drops them silently, so request input that uses one
 * is refused by name instead (docs/architecture.md#adapter-operations).
 */
const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Issues for every own key of `input`, at any depth, that is a reserved name; `prefix` names where it sits. */
export function reservedKeyIssues(input: unknown, prefix = ''): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const keys: string[] = [];
  const visit = (value: unknown, depth: number) => {
    if (value === null || typeof value !== 'object' || depth > 16) return;
    for (const key of Object.keys(value)) {
      keys.push(key);
      if (RESERVED_KEYS.has(key))
        issues.push({
          path: pathOf(prefix, keys),
          message: `"${key}" is a reserved name and cannot be used as a key`,
        });
      else visit((value as Record<string, unknown>)[key], depth + 1);
      keys.pop();
    }
  };
  visit(input, 0);
  return issues;
}

/** Issues for what a request cannot carry as JSON (a `BigInt`, a cycle) at any depth of `input`. */
export function unserialisableIssues(input: unknown, prefix = ''): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const keys: string[] = [];
  const ancestors: object[] = [];
  const visit = (value: unknown) => {
    if (typeof value === 'bigint')
      issues.push({
        path: pathOf(prefix, keys),
        message: 'is a BigInt, which JSON cannot carry: pass a number or a string',
      });
    if (value === null || typeof value !== 'object') return;
    if (ancestors.includes(value)) {
      issues.push({
        path: pathOf(prefix, keys),
        message: 'refers back to an object that contains it (JSON cannot carry a cycle)',
      });
      return;
    }
    ancestors.push(value);
    for (const [key, item] of Object.entries(value)) {
      keys.push(key);
      visit(item);
      keys.pop();
    }
    ancestors.pop();
  };
  visit(input);
  return issues;
}

/** The dotted path of the keys walked below `prefix`, built only for an issue. */
function pathOf(prefix: string, keys: readonly string[]): string {
  return keys.reduce((at, key) => (at ? `${at}.${key}` : key), prefix);
}

/**
 * Validates `input` against `schema` and returns the parsed output, or throws one {@link ValidationError} listing
 * every issue, reserved key names and values JSON cannot carry included. `prefix` names where `input` sits.
 */
export function parseInput<S extends v.GenericSchema>(
  schema: S,
  input: unknown,
  where: { operation: string; prefix?: string },
): v.InferOutput<S> {
  const reserved = [...reservedKeyIssues(input, where.prefix), ...unserialisableIssues(input, where.prefix)];
  const result = v.safeParse(schema, input, { abortEarly: false });
  if (result.success && reserved.length === 0) return result.output;
  const reservedPaths = new Set(reserved.map((issue) => issue.path));
  const issues = result.success
    ? []
    : toValidationIssues(result.issues, where.prefix).filter((issue) => !reservedPaths.has(issue.path));
  throw new ValidationError([...reserved, ...issues], { operation: where.operation });
}

/** Throws one {@link ValidationError} when `issues` is not empty. */
export function assertNoIssues(issues: ValidationIssue[], operation: string): void {
  if (issues.length > 0) throw new ValidationError(issues, { operation });
}

/** The fields a provider payload failed on: names only, never values (they can carry personal data). */
export function mismatchedFields(issues: readonly v.BaseIssue<unknown>[]): string {
  return [...new Set(toValidationIssues(issues).map((issue) => issue.path || '(body)'))].join(', ');
}

/** A JSON object (not `null`, not an array), before reading its members. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
