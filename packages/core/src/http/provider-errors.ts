/**
 * The provider client's error table and the `ProviderApiError` of a refusal (docs/architecture.md#provider-client,
 * docs/architecture.md#outcomes).
 */
import { ProviderApiError, providerErrorKindOf } from '../errors.js';
import { redact, redactError } from '../redaction.js';
import { CREDENTIALS_HINT } from './failures.js';
import type {
  EnvelopeReading,
  ProviderCall,
  ProviderClientOptions,
  ProviderErrorRule,
  ProviderErrorTable,
  ProviderOutcome,
} from './provider-types.js';
import type { HttpReply } from './types.js';

/**
 * The key of a table's rules for any code: they apply to a refusal that carries a provider code when none of that
 * code's own rules does, never to a reply without a code (Provider T, docs/providers/provider-t.md#errors).
 */
export const ANY_PROVIDER_CODE = '*';

/** The refusal of one reply as a `ProviderApiError`, kind and advice from the table, else from the status. */
export function refusalOf(
  reply: HttpReply,
  call: ProviderCall,
  reading: Extract<EnvelopeReading, { ok: false }>,
  provider: Pick<ProviderClientOptions, 'provider' | 'errors' | 'credentialsHint'> & {
    secrets: readonly string[];
  },
): Extract<ProviderOutcome, { ok: false }> {
  const { errors, credentialsHint, secrets } = provider;
  const code = reading.code === undefined ? undefined : redact(reading.code, secrets);
  const providerMessage = reading.message === undefined ? undefined : redact(reading.message, secrets);
  const rule = ruleFor(errors, code, providerMessage, reply.status);
  // A 401 reaching here was already answered to the one re-login the HTTP client makes (or to a login): the
  // credentials themselves are refused, so the message says which configuration to check
  // (docs/architecture.md#provider-client).
  const credentialsRefused = reply.status === 401 || (call.authorize === false && reply.status === 403);
  const kind = rule?.kind ?? providerErrorKindOf(reply.status);
  const fields = {
    provider: provider.provider,
    status: reply.status,
    providerCode: code,
    providerMessage,
    requestId: reply.requestId,
    kind,
    ...(rule?.retryable === undefined ? {} : { retryable: rule.retryable }),
  };
  const details =
    reading.details && secrets.length > 0 ? redactError(reading.details, secrets) : reading.details;
  const context = details && Object.keys(details).length > 0 ? { ...call.context, ...details } : call.context;
  const plain = new ProviderApiError(fields, context ? { context } : {});
  let message = rule?.advice
    ? `${provider.provider} answered HTTP ${reply.status}${code ? ` (code ${code})` : ''}: ${rule.advice}`
    : undefined;
  if (credentialsRefused && kind === 'authentication')
    message = `${(message ?? plain.message).trimEnd()} ${CREDENTIALS_HINT}${credentialsHint ? ` ${credentialsHint}` : ''}`;
  const error = message ? new ProviderApiError({ ...fields, message }, context ? { context } : {}) : plain;
  return { ok: false, error, code, rule, reply };
}

/** Whether a call can move money: its own say, else every call that is not safe to repeat. */
export function movesMoneyOf(call: ProviderCall): boolean {
  return call.movesMoney ?? !call.retrySafe;
}

/** The refusal to throw: after an attempt that may have landed, a money-moving call's outcome is unknown. */
export function thrownRefusal(
  provider: string,
  outcome: Extract<ProviderOutcome, { ok: false }>,
  call: ProviderCall,
): ProviderApiError {
  if (!movesMoneyOf(call) || !outcome.reply.earlierAttemptMayHaveReached) return outcome.error;
  return outcome.error.withDetails({
    message: `${provider} refused ${call.call} (HTTP ${outcome.reply.status}${
      outcome.code ? `, code ${outcome.code}` : ''
    }) after an earlier attempt of it may have reached the provider; this refusal proves nothing about that attempt.`,
    outcome: 'unknown',
  });
}

/** The rule for a refusal: the code's own rules, then those for {@link ANY_PROVIDER_CODE}; none without a code. */
function ruleFor(
  table: ProviderErrorTable,
  code: string | undefined,
  message: string | undefined,
  status: number,
): ProviderErrorRule | undefined {
  if (code === undefined) return undefined;
  const applies = (rule: ProviderErrorRule) =>
    (rule.status === undefined || rule.status === status) &&
    (rule.message === undefined || rule.message.test(message ?? ''));
  return rulesOf(table, code).find(applies) ?? rulesOf(table, ANY_PROVIDER_CODE).find(applies);
}

/** The rules a table lists under one key (own properties only; none for a key it does not list). */
function rulesOf(table: ProviderErrorTable, key: string): readonly ProviderErrorRule[] {
  if (!Object.hasOwn(table, key)) return [];
  const entry = table[key];
  return Array.isArray(entry) ? entry : [entry as ProviderErrorRule];
}
