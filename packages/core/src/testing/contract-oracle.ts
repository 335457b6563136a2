/**
 * The oracle checks of the conformance suite (docs/architecture.md#conformance-suite): the simulator knows the
 * truth, so every record the adapter returns and every event it raises is compared with the simulator's books in
 * normalised form (amount in minor units, currency, what the status means, ids), every money-moving request is
 * decoded from the bytes the simulator received, and every status and event type the simulator can produce is
 * driven, read from its descriptor rather than from a list the adapter's author wrote.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import type { AnyAdapter } from '../adapter.js';
import { keyedReference } from '../idempotency-keys.js';
import { minorDigits, toMinorUnits } from '../money.js';
import { createPay } from '../pay.js';
import type { PaymentStatus } from '../records.js';
import type { PayEvent, WebhookRequest } from '../webhooks/types.js';
import { SUITE_SETTINGS, withSimulator } from './contract-run.js';
import type { AnySimulator, ContractCheck, SimulatorContext, SimulatorContract } from './contract-types.js';
import type { LedgerEntry, MoneyMeaning, SimulatorOracle } from './kit/descriptor.js';
import type { PayerAction } from './kit/pages.js';

/** Any simulator's oracle, as the suite reads it. */
// biome-ignore lint/suspicious/noExplicitAny: the oracle is typed with the adapter's own simulator and books.
export type AnyOracle = SimulatorOracle<any, any>;

/** The context every oracle check runs in. */
type Context = SimulatorContext<AnySimulator, AnyAdapter>;

/** The unified payment statuses each meaning allows (a refunded payment reads as canceled, as Provider T's does). */
const STATUSES_OF: Readonly<Record<MoneyMeaning, readonly PaymentStatus[]>> = {
  paid: ['succeeded'],
  failed: ['failed', 'canceled'],
  pending: ['pending', 'processing', 'requires_action', 'requires_capture'],
  refunded: ['canceled', 'failed'],
};

/** The unified refund statuses each meaning allows: a refund entry is `refunded` once done, else pending or failed. */
const REFUND_STATUSES_OF: Readonly<Record<MoneyMeaning, readonly string[]>> = {
  paid: ['succeeded'],
  refunded: ['succeeded'],
  failed: ['failed'],
  pending: ['pending'],
};

/** What each normalised payment event says about the money: the books must agree. */
const EVENT_MEANINGS: Readonly<Record<string, readonly MoneyMeaning[]>> = {
  'payment.succeeded': ['paid'],
  'payment.failed': ['failed', 'refunded'],
};

/** Awkward amounts per minor digits, as the caller asks them (major units). */
const ORACLE_AMOUNTS: Readonly<Record<number, readonly number[]>> = {
  0: [19, 1001],
  2: [19.99, 0.29, 1234.56],
  3: [1.005, 19.999],
};

/** The unit of amounts in the adapter's records. */
const recordUnitOf = (contract: SimulatorContract) => contract.amounts.recordUnit ?? contract.amounts.unit;

/** A record or event payload, as far as the oracle reads it. */
interface MoneyFields {
  id?: unknown;
  amount?: unknown;
  currency?: unknown;
  status?: unknown;
  payment_id?: unknown;
  livemode?: unknown;
}

/** The oracle of `contract`, or a failure saying what the contributor must add. */
export function oracleOf(contract: SimulatorContract): AnyOracle {
  const oracle = contract.descriptor?.oracle;
  if (!oracle)
    throw new Error(
      'SimulatorContract.descriptor.oracle is missing: export the simulator descriptor with its books, statuses and wire in normalised form (docs/architecture.md#conformance-suite)',
    );
  expect(Object.keys(oracle.paymentStatuses).length, 'oracle.paymentStatuses').toBeGreaterThan(0);
  return oracle;
}

/** `amount` of a record in `currency` as integer minor units, reading it in the adapter's declared unit. */
function minorOf(amount: unknown, currency: string, unit: 'major' | 'minor'): unknown {
  if (typeof amount !== 'number') return amount;
  if (unit === 'minor') return amount;
  try {
    return toMinorUnits(amount, currency);
  } catch {
    return `${amount} (not an amount of ${currency})`;
  }
}

/** Fails unless `record` (a payment, checkout or refund) agrees with `entry` of the books. */
export function expectAgrees(
  record: MoneyFields,
  entry: LedgerEntry,
  unit: 'major' | 'minor',
  where: string,
): void {
  const currency = String(record.currency ?? '');
  expect(currency.toUpperCase(), `${where}: currency of ${entry.kind} ${entry.id}`).toBe(entry.currency);
  expect(
    minorOf(record.amount, entry.currency, unit),
    `${where}: amount of ${entry.kind} ${entry.id} (${record.amount} in ${unit} units) against the books' ${entry.amountMinor} minor units`,
  ).toBe(entry.amountMinor);
  if (typeof record.status !== 'string') return;
  const allowed = entry.kind === 'refund' ? REFUND_STATUSES_OF[entry.meaning] : STATUSES_OF[entry.meaning];
  expect(
    allowed,
    `${where}: ${entry.kind} ${entry.id} reads ${record.status}, but the books say ${entry.status} (${entry.meaning})`,
  ).toContain(record.status);
}

/** The books' entry for `record`, by its id (a refund by its own id). */
function entryFor(ledger: readonly LedgerEntry[], record: MoneyFields): LedgerEntry | undefined {
  const kind = typeof record.payment_id === 'string' ? 'refund' : 'payment';
  return ledger.find((entry) => entry.kind === kind && entry.id === record.id);
}

/** Compares each record with the books; fails when none of them is in the books (no vacuous pass). */
function expectRecordsAgree(
  records: readonly unknown[],
  context: Context,
  contract: SimulatorContract,
  where: string,
): void {
  const ledger = oracleOf(contract).ledger(context.simulator.books());
  let matched = 0;
  for (const record of records) {
    const fields = (record ?? {}) as MoneyFields;
    const entry = entryFor(ledger, fields);
    if (!entry) continue;
    matched += 1;
    expectAgrees(fields, entry, recordUnitOf(contract), where);
  }
  expect(matched, `${where}: records whose id is in the simulator's books`).toBeGreaterThan(0);
}

/** A loopback endpoint that keeps every request it receives, raw, as `handle()` takes it. */
async function captureEndpoint() {
  const received: WebhookRequest[] = [];
  const server = createServer((request, reply) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers))
        if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
      received.push({
        body: new Uint8Array(Buffer.concat(chunks)),
        headersAsObject: headers,
        fullUrl: `http://${request.headers.host ?? '127.0.0.1'}${request.url ?? '/'}`,
      });
      reply.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Handles `deliveries` with a fresh adapter for `simulator` and returns every event raised. */
async function eventsOf(
  contract: SimulatorContract,
  simulator: AnySimulator,
  deliveries: readonly WebhookRequest[],
  where: string,
): Promise<PayEvent[]> {
  const adapter = contract.createAdapter(simulator, SUITE_SETTINGS);
  const handler = createPay(adapter).webhooks.setup({ webhookSecret: contract.webhookSecret(simulator) });
  const events: PayEvent[] = [];
  for (const delivery of deliveries) {
    const result = await handler.handle(delivery).catch((error: unknown) => {
      throw new Error(`${where}: a genuine delivery signed by the simulator was refused: ${String(error)}`);
    });
    events.push(...result.events);
  }
  return events;
}

/** Fails unless every payment or refund event agrees with the books, and a paid/failed event with their meaning. */
function expectEventsAgree(
  events: readonly PayEvent[],
  ledger: readonly LedgerEntry[],
  unit: 'major' | 'minor',
  where: string,
): number {
  let matched = 0;
  for (const event of events) {
    if (event.is_raw) continue;
    const data = (event.data ?? {}) as MoneyFields;
    const entry = entryFor(ledger, data);
    const meanings = EVENT_MEANINGS[event.type];
    // A simulator's sample event may name a payment its books do not hold: nothing to compare it with.
    if (!entry) continue;
    matched += 1;
    if (meanings)
      expect(
        meanings,
        `${where}: ${event.type} announced for ${entry.kind} ${entry.id}, whose status in the books is ${entry.status} (${entry.meaning})`,
      ).toContain(entry.meaning);
    expectAgrees(data, entry, unit, `${where}, ${event.type}`);
  }
  return matched;
}

/** Opens a payment of a plain amount through the contract's amount call; resolves to its record's id. */
async function openPayment(context: Context, contract: SimulatorContract) {
  const [first] = contract.amounts.currencies;
  if (!first) throw new Error('SimulatorContract.amounts.currencies lists no currency');
  const amount = Math.max(first.minimum ?? 0, 50);
  const record = (await contract.amounts.send(context, amount, first.currency)) as MoneyFields;
  expect(typeof record?.id, 'the id of the record amounts.send resolved to').toBe('string');
  return record.id as string;
}

/** The adapter's read of a payment: `payments.retrieve`, else `checkouts.retrieve`. */
function readPayment(context: Context, id: string): Promise<unknown> {
  const adapter = context.adapter as unknown as {
    capabilities: readonly string[];
  } & Record<string, (id: string) => Promise<unknown>>;
  const read = adapter.capabilities.includes('payments.retrieve')
    ? adapter.retrievePayment
    : adapter.capabilities.includes('checkouts.retrieve')
      ? adapter.retrieveCheckout
      : undefined;
  if (read) return read.call(adapter, id);
  throw new Error('the adapter reads payments neither by payments.retrieve nor by checkouts.retrieve');
}

/** The payer's actions, each a way the simulator moves a payment and signs a webhook about it. */
const PAYER_ACTIONS: readonly PayerAction[] = ['pay', 'fail', 'cancel'];

/** `produceRecords`' records agree with the books. */
async function recordsAgree(contract: SimulatorContract, context: Context): Promise<void> {
  const records = await contract.produceRecords(context);
  expectRecordsAgree(records, context, contract, 'produceRecords');
}

/** Each of `values` of `currency` arrives on the wire as asked, and the books and the record agree. */
async function movesAsAsked(
  contract: SimulatorContract,
  context: Context,
  currency: string,
  values: readonly number[],
): Promise<void> {
  const oracle = oracleOf(contract);
  for (const amount of values) {
    const before = context.simulator.requests.length;
    const record = await contract.amounts.send(context, amount, currency);
    const moving = context.simulator.requests
      .slice(before)
      .map((request) => oracle.wire(request))
      .filter((money) => money !== undefined)
      .map(({ kind, amountMinor, currency: sent }) => ({ kind, amountMinor, currency: sent }));
    expect(moving.at(-1), `the money request for ${amount} ${currency}, decoded from the wire`).toEqual({
      kind: 'payment',
      amountMinor: toMinorUnits(amount, currency),
      currency,
    });
    expectRecordsAgree([record], context, contract, `${amount} ${currency}`);
  }
}

/** Every status the simulator can report, set on a fresh payment and read back with its meaning. */
async function everyStatusRead(contract: SimulatorContract, context: Context): Promise<void> {
  const oracle = oracleOf(contract);
  for (const status of Object.keys(oracle.paymentStatuses)) {
    const id = await openPayment(context, contract);
    await oracle.setPaymentStatus(context.simulator, id, status);
    const record = await readPayment(context, id);
    expect(record, `the read of a payment in status ${status}`).not.toBeNull();
    expectRecordsAgree([record], context, contract, `provider status ${status}`);
  }
}

/** The webhooks the simulator signs after each payer action raise events that agree with the books. */
async function payerWebhooksAgree(contract: SimulatorContract, context: Context): Promise<void> {
  const endpoint = await captureEndpoint();
  let matched = 0;
  try {
    context.simulator.forwardWebhooks(endpoint.url);
    for (const action of PAYER_ACTIONS) {
      const id = await openPayment(context, contract);
      const from = endpoint.received.length;
      await context.simulator.payer[action](id);
      // A provider may send nothing for an action (Provider N announces no cancellation): nothing to compare.
      const where = `the webhooks after the payer chose ${action}`;
      const events = await eventsOf(contract, context.simulator, endpoint.received.slice(from), where);
      const ledger = oracleOf(contract).ledger(context.simulator.books());
      matched += expectEventsAgree(events, ledger, recordUnitOf(contract), where);
    }
  } finally {
    context.simulator.forwardWebhooks(null);
    await endpoint.close();
  }
  expect(matched, 'events about the payments the payer acted on').toBeGreaterThan(0);
}

/** Every event type the descriptor lists, triggered by the simulator, is accepted and agrees with the books. */
async function everyEventTypeAccepted(contract: SimulatorContract, context: Context): Promise<void> {
  const events = contract.descriptor?.events ?? [];
  expect(events.length, 'SimulatorContract.descriptor.events').toBeGreaterThan(0);
  const endpoint = await captureEndpoint();
  try {
    for (const event of events) {
      const from = endpoint.received.length;
      await context.simulator.trigger(event, { to: endpoint.url });
      const where = `the simulator's ${event} event`;
      const delivered = await eventsOf(contract, context.simulator, endpoint.received.slice(from), where);
      expect(delivered.length, `${where}: events raised`).toBeGreaterThan(0);
      const ledger = oracleOf(contract).ledger(context.simulator.books());
      expectEventsAgree(delivered, ledger, recordUnitOf(contract), where);
    }
  } finally {
    await endpoint.close();
  }
}

/**
 * Each money-moving call sent with an idempotency key carries the reference derived from it (`keyedReference(key)`)
 * in every money request that names one, as the simulator decoded them, and at least one call names one.
 */
async function referencesFromKey(contract: SimulatorContract, context: Context): Promise<void> {
  const oracle = oracleOf(contract);
  let seen = 0;
  for (const call of contract.moneyMovingCalls) {
    const prepared = await call.prepare?.(context);
    const idempotencyKey = `conformance-reference-${call.name}`;
    const before = context.simulator.requests.length;
    await call.send(context, prepared, { idempotencyKey });
    const references = context.simulator.requests
      .slice(before)
      .map((request) => oracle.wire(request)?.reference)
      .filter((reference) => reference !== undefined);
    const expected = await keyedReference(idempotencyKey);
    seen += references.length;
    for (const reference of references)
      expect(reference, `the reference ${call.name} sent with idempotency key ${idempotencyKey}`).toBe(
        expected,
      );
  }
  // A call that takes no reference (a capture) sends none; a provider that takes none says so in `noReference`.
  expect(
    seen,
    'references the money-moving calls sent (SimulatorContract.noReference when none)',
  ).toBeGreaterThan(0);
}

/** Fails unless every record says `livemode: expected`. */
function expectLivemode(records: readonly unknown[], expected: boolean, which: string): void {
  expect(records.length, `records produced by the ${which} adapter`).toBeGreaterThan(0);
  for (const record of records)
    expect((record as MoneyFields).livemode, `livemode of a ${which} record ${JSON.stringify(record)}`).toBe(
      expected,
    );
}

/** Records say `livemode: false` from the test configuration and `true` from `liveSettings`. */
async function livemodeFromConfiguration(contract: SimulatorContract, context: Context): Promise<void> {
  expectLivemode(await contract.produceRecords(context), false, 'test');
  const adapter = contract.createAdapter(context.simulator, { ...SUITE_SETTINGS, ...contract.liveSettings });
  const live = await contract.produceRecords({ ...context, adapter, pay: createPay(adapter) });
  expectLivemode(live, true, 'live');
}

/** The oracle checks of `contract` (docs/architecture.md#conformance-suite). */
export function oracleChecks(contract: SimulatorContract): ContractCheck[] {
  const check = (name: string, body: (context: Context) => Promise<void>): ContractCheck => ({
    name,
    run: () => withSimulator(contract, body),
  });
  const amountChecks = contract.amounts.currencies.map(({ currency, decimals, minimum = 0 }) => {
    const values = (ORACLE_AMOUNTS[decimals] ?? []).map((amount) =>
      amount < minimum ? Number((amount + minimum).toFixed(decimals)) : amount,
    );
    return check(
      `moves ${values.join(', ')} ${currency} as asked: the request the simulator decoded, its books and the record agree`,
      async (context) => {
        expect(minorDigits(currency), `minor digits of ${currency}`).toBe(decimals);
        await movesAsAsked(contract, context, currency, values);
      },
    );
  });
  return [
    check(
      "returns records that agree with the simulator's books (amount, currency, status meaning, id)",
      (context) => recordsAgree(contract, context),
    ),
    ...amountChecks,
    check(
      'reads every payment status the simulator can report with its meaning, and never an unpaid one as paid',
      (context) => everyStatusRead(contract, context),
    ),
    check(
      `raises events that agree with the books from the genuine signed webhooks the simulator sends when the payer chooses ${PAYER_ACTIONS.join(', ')}`,
      (context) => payerWebhooksAgree(contract, context),
    ),
    check('accepts every event type the simulator signs, and each event agrees with the books', (context) =>
      everyEventTypeAccepted(contract, context),
    ),
    ...(contract.noReference
      ? []
      : [
          check(
            'sends the reference derived from the idempotency key (keyedReference) with each money-moving call',
            (context) => referencesFromKey(contract, context),
          ),
        ]),
    check('gives records livemode: true from a live configuration and false from a test one', (context) =>
      livemodeFromConfiguration(contract, context),
    ),
  ];
}
