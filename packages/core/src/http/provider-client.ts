/**
 * The provider client (docs/architecture.md#provider-client), between core's HTTP client and an adapter's
 * operations: it sends, reads the adapter's envelope, and turns a refusal into a `ProviderApiError` by the adapter's
 * error table — with `outcome: 'unknown'` when a money-moving call is refused after an earlier attempt may have
 * reached the provider (docs/architecture.md#outcomes).
 */
import type * as v from 'valibot';
import type { CallOptions } from '../adapter.js';
import type { CallTrace } from '../diagnostics/channels.js';
import { describeCall, settleCall, traceCall } from '../diagnostics/http-tracing.js';
import { type ProviderName, requestIdOf } from '../records.js';
import { createHttpClient } from './client.js';
import { authorised, loginOf, transportOf } from './provider-auth.js';
import { movesMoneyOf, refusalOf, thrownRefusal } from './provider-errors.js';
import type {
  ProviderCall,
  ProviderClient,
  ProviderClientOptions,
  ProviderOutcome,
} from './provider-types.js';
import { parseReply } from './replies.js';

/** Creates an adapter's provider client; no I/O until the first call (docs/architecture.md#credential-rotation). */
export function createProviderClient<C extends object = never>(
  options: ProviderClientOptions<C>,
): ProviderClient & { updateCredentials(credentials: C): void } {
  const {
    readEnvelope,
    errors,
    credentialsHint,
    providerRequestIdHeader,
    auth,
    transport,
    login,
    ...httpOptions
  } = options;
  const { provider } = options;
  const rotating = login && loginOf(login, () => client);
  // Grows when a rotated credential replaces a configured one (rememberSecrets).
  const secrets = [...(options.secrets ?? []), ...(login ? login.secrets(login.credentials) : [])];
  const refusals = { provider, errors, credentialsHint, secrets };
  const http = createHttpClient({
    ...transportOf(transport),
    ...httpOptions,
    secrets: [...secrets],
    ...(rotating ? { authorization: rotating.authorization } : {}),
  });

  async function send(call: ProviderCall, context?: CallOptions): Promise<ProviderOutcome> {
    const request = authorised(call, auth, rememberSecrets);
    const exchange = async (): Promise<ProviderOutcome> => {
      const reply = await http.send(request, context);
      const reading = readEnvelope(reply, call);
      return reading.ok ? { ok: true, body: reading.body, reply } : refusalOf(reply, call, reading, refusals);
    };
    // One `pay:call` per logical call (docs/architecture.md#tracing-channels), ended with what the envelope said,
    // not only the status.
    return traceCall(
      () => describeCall(provider, options.baseUrl, request),
      request,
      exchange,
      (trace, outcome) => settleProviderCall(trace, outcome, call),
    );
  }

  const client: ProviderClient & { updateCredentials(credentials: C): void } = {
    send,
    async request(schema, call, context) {
      const outcome = await send(call, context);
      if (!outcome.ok) throw thrownRefusal(provider, outcome, call);
      return parsed(schema, outcome.body, provider, call);
    },
    async findReplied(schema, call, context) {
      const outcome = await send(call, context);
      if (!outcome.ok) {
        // Not-found comes from the table only, and never from a gateway failure.
        if (outcome.rule?.notFound === true && outcome.reply.status < 500) return null;
        throw thrownRefusal(provider, outcome, call);
      }
      const { body, reply } = outcome;
      const requestId = requestIdOf(reply, providerRequestIdHeader);
      return { body: parsed(schema, body, provider, call), raw: body, reply, requestId };
    },
    async find(schema, call, context) {
      const found = await client.findReplied(schema, call, context);
      return found === null ? null : found.body;
    },
    rememberSecrets,
    updateCredentials(credentials) {
      if (!rotating) throw new TypeError(`${provider}'s client declares no login whose credentials rotate.`);
      rotating.update(credentials);
    },
  };
  return client;

  function rememberSecrets(values: readonly string[]): void {
    http.rememberSecrets(values);
    for (const value of values) if (!secrets.includes(value)) secrets.push(value);
  }
}

function parsed<S extends v.GenericSchema>(
  schema: S,
  body: unknown,
  provider: ProviderName,
  call: ProviderCall,
) {
  return parseReply(schema, body, { provider, call: call.call, context: call.context });
}

/** Ends a call's `pay:call` trace with what the envelope said (docs/architecture.md#outcomes). */
function settleProviderCall(
  trace: CallTrace,
  outcome: { ok: true; value: ProviderOutcome } | { ok: false; error: unknown },
  call: ProviderCall,
): void {
  settleCall(trace, outcome);
  if (
    outcome.ok &&
    !outcome.value.ok &&
    movesMoneyOf(call) &&
    outcome.value.reply.earlierAttemptMayHaveReached
  )
    trace.outcome = 'unknown';
}
