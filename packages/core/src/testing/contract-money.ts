/**
 * The money-safety checks of the adapter contract suite (docs/architecture.md#conformance-suite), run against the
 * adapter's own simulator through its whole `PaymentSimulator`: provider statuses, money-moving calls under
 * faults, amounts on the wire, reads of unknown ids, records, and credentials in errors. Each check is a function
 * that throws an assertion error naming what the adapter got wrong; `contract.ts` registers them with vitest or
 * runs them as findings.
 */
import { inspect } from 'node:util';
import { expect } from 'vitest';
import type { AnyAdapter } from '../adapter.js';
import { ProviderApiError, type ProviderErrorKind, ValidationError } from '../errors.js';
import { faultMatrixChecks } from './contract-faults.js';
import { multiInstanceChecks } from './contract-instances.js';
import { oracleChecks } from './contract-oracle.js';
import { callsTo, rejectionOf, unknownIdReads, withSimulator } from './contract-run.js';
import type { AnySimulator, ContractCheck, SimulatorContract, SupportedCurrency } from './contract-types.js';
import type { RecordedRequest } from './kit/requests.js';

/** A status the suite makes up: no provider documents it, so no adapter may read it as paid. */
const UNDOCUMENTED_STATUS = 'CONFORMANCE_UNDOCUMENTED_STATUS';

/** The portable kinds of a provider refusal (`ProviderApiError.kind`). */
const PROVIDER_ERROR_KINDS = new Set<ProviderErrorKind>([
  'authentication',
  'invalid_request',
  'not_found',
  'conflict',
  'rate_limited',
  'provider_unavailable',
  'declined',
] satisfies ProviderErrorKind[]);

/** Amounts per minor digits: the classic float traps (`19.99 * 100`, `0.29 * 100`, `1.005 * 1000`). */
const EXACT_AMOUNTS: Readonly<Record<SupportedCurrency['decimals'], readonly number[]>> = {
  0: [500, 19],
  2: [19.99, 0.29, 1.01, 1234.56],
  3: [1.005, 0.29, 19.999],
};

/** An amount one digit finer than the currency allows: refused before any upstream call. */
const TOO_FINE: Readonly<Record<SupportedCurrency['decimals'], number>> = { 0: 19.5, 2: 1.005, 3: 1.0005 };

/** Every way an error can be shown: message, stack, JSON, and the whole inspected object with its causes. */
function renderingsOf(error: unknown): string {
  const json = (() => {
    try {
      return JSON.stringify(error);
    } catch {
      return '';
    }
  })();
  return [String(error), (error as Error | null)?.stack ?? '', json, inspect(error, { depth: 12 })].join(
    '\n',
  );
}

/**
 * The parts of `credential` that must not be shown: the whole value, and for a value of 16 characters or more
 * each half, since a message that shows a key cut short ("the key sk_test_4eC39Hq…") leaks most of it and no exact
 * redaction catches it.
 */
function revealingParts(credential: string): string[] {
  if (credential.length < 16) return credential.length > 0 ? [credential] : [];
  const half = Math.floor(credential.length / 2);
  return [credential, credential.slice(0, half), credential.slice(-half)];
}

/** Fails when `error` shows any of `credentials`, or half of one, anywhere. */
function expectNoCredential(error: unknown, credentials: readonly string[], where: string): void {
  const shown = renderingsOf(error);
  for (const [index, credential] of credentials.entries())
    for (const part of revealingParts(credential))
      if (shown.includes(part))
        throw new Error(
          `credentials[${index}] (or half of it) appears in the error of ${where}: ${String(error)}`,
        );
}

/** `value` written as a plain decimal, trailing fraction zeros dropped (`'19.990'` → `'19.99'`, `5` → `'5'`). */
function canonicalDecimal(value: unknown): string {
  const text = String(value);
  return text.includes('.') && !/e/i.test(text) ? text.replace(/\.?0+$/, '') : text;
}

/** The exact wire text of `amount` (a number in major units) in `unit`, moving the decimal point in the text. */
function expectedWire(amount: number, decimals: number, unit: 'major' | 'minor'): string {
  const [whole = '0', fraction = ''] = String(amount).split('.');
  if (unit === 'major') return canonicalDecimal(amount);
  return String(BigInt(whole + fraction.padEnd(decimals, '0')));
}

/** The money-safety checks of `contract` (docs/architecture.md#conformance-suite). */
export function moneySafetyChecks<S extends AnySimulator, A extends AnyAdapter>(
  contract: SimulatorContract<S, A>,
): ContractCheck[] {
  const checks: ContractCheck[] = [];
  const check = (name: string, run: () => Promise<void>) => checks.push({ name, run });
  const errorsSeen: { where: string; error: unknown }[] = [];
  const seen = (where: string, error: unknown) => {
    errorsSeen.push({ where, error });
    return error;
  };

  check(
    'returns records that name its provider and carry the request id of the call that produced them',
    () =>
      withSimulator(contract, async (context) => {
        const records = await contract.produceRecords(context);
        expect(records.length, 'records produced').toBeGreaterThan(0);
        for (const record of records) {
          const fields = (record ?? {}) as { provider?: unknown; request_id?: unknown };
          expect(fields.provider, `provider of ${JSON.stringify(record)}`).toBe(context.adapter.provider);
          expect(typeof fields.request_id, `request_id of ${JSON.stringify(record)}`).toBe('string');
          expect((fields.request_id as string).length).toBeGreaterThan(0);
        }
      }),
  );

  check('reports a refusal by the provider as a ProviderApiError with a portable kind', () =>
    withSimulator(contract, async (context) => {
      const error = seen(
        'a refused call',
        await rejectionOf(contract.refusedCall(context), 'the refused call'),
      );
      expect(ProviderApiError.isInstance(error), String(error)).toBe(true);
      expect(PROVIDER_ERROR_KINDS.has((error as ProviderApiError).kind), String(error)).toBe(true);
    }),
  );

  const { statuses } = contract;
  check(`reads each paid status (${statuses.paid.join(', ')}) as succeeded`, () =>
    withSimulator(contract, async (context) => {
      for (const status of statuses.paid) {
        const record = (await statuses.read(context, status)) as { status?: unknown } | null;
        expect(record?.status, `provider status ${status}`).toBe('succeeded');
      }
    }),
  );
  const notPaid = [...statuses.failed, ...(statuses.notPaid ?? []), UNDOCUMENTED_STATUS];
  check(`never reads a failure, pending or unknown status as paid (${notPaid.join(', ')})`, () =>
    withSimulator(contract, async (context) => {
      for (const status of notPaid) {
        const read = await statuses.read(context, status).then(
          (record) => ({ record }),
          (error: unknown) => ({ error: seen(`a read of status ${status}`, error) }),
        );
        // An unreadable status may be refused (InvalidResponseError); it must never resolve as money received.
        if (!('record' in read)) continue;
        const record = read.record as { status?: unknown; amount_paid?: unknown } | null;
        expect(record?.status, `provider status ${status} read as ${JSON.stringify(record)}`).not.toBe(
          'succeeded',
        );
        // A refunded or reversed payment may say what was paid before; a status nobody documents says nothing.
        if (status === UNDOCUMENTED_STATUS && typeof record?.amount_paid === 'number')
          expect(record.amount_paid, `amount_paid of provider status ${status}`).toBe(0);
      }
    }),
  );

  checks.push(...oracleChecks(contract as unknown as SimulatorContract));
  checks.push(...faultMatrixChecks(contract, seen));
  checks.push(...multiInstanceChecks(contract));

  const { amounts } = contract;
  for (const { currency, decimals, minimum = 0 } of amounts.currencies) {
    const values = EXACT_AMOUNTS[decimals].map((amount) =>
      amount < minimum ? Number((amount + minimum).toFixed(decimals)) : amount,
    );
    check(`sends ${values.join(', ')} ${currency} exactly, in ${amounts.unit} units`, () =>
      withSimulator(contract, async (context) => {
        for (const amount of values) {
          await amounts.send(context, amount, currency);
          const last = callsTo(context.simulator, 'POST', amounts.path).at(-1);
          expect(last, `no call to ${amounts.path} for ${amount} ${currency}`).toBeDefined();
          const wire = amounts.wireAmount(last as RecordedRequest);
          expect(canonicalDecimal(wire), `${amount} ${currency} on the wire`).toBe(
            expectedWire(amount, decimals, amounts.unit),
          );
        }
      }),
    );
    const fine = TOO_FINE[decimals];
    check(`refuses ${fine} ${currency} (finer than ${decimals} decimals) before any upstream call`, () =>
      withSimulator(contract, async (context) => {
        const before = context.simulator.requests.length;
        const error = await rejectionOf(amounts.send(context, fine, currency), `${fine} ${currency}`);
        expect(ValidationError.isInstance(error), String(error)).toBe(true);
        expect(context.simulator.requests.length - before, 'upstream calls made').toBe(0);
      }),
    );
  }

  check('resolves a read of an id the provider does not hold to null', () =>
    withSimulator(contract, async ({ adapter }) => {
      for (const { operation, id, read } of unknownIdReads(contract as SimulatorContract, adapter)) {
        const result = await read(adapter).catch((error: unknown) =>
          seen(`${operation} of an unknown id`, error),
        );
        expect(result, `${operation}('${id}')`).toBeNull();
      }
    }),
  );

  check('puts no credential in any error (refusals, faults, a refused login or key)', async () => {
    await withSimulator(contract, async (context) => {
      const [call] = contract.moneyMovingCalls;
      if (!call) throw new Error('SimulatorContract.moneyMovingCalls lists no call');
      const prepared = await call.prepare?.(context);
      context.simulator.faults.inject({
        path: /./,
        times: 20,
        fault: { kind: 'status', status: 401, body: JSON.stringify({ error: 'invalid credentials' }) },
      });
      seen(
        'a call answered 401',
        await rejectionOf(call.send(context, prepared, {}), `${call.name} answered 401`),
      );
      context.simulator.faults.clear();
      seen('a refused call', await rejectionOf(contract.refusedCall(context), 'the refused call'));
      const credentials = contract.credentials(context.simulator);
      expect(credentials.length, 'SimulatorContract.credentials').toBeGreaterThan(0);
      for (const { where, error } of errorsSeen) expectNoCredential(error, credentials, where);
    });
  });

  return checks;
}
