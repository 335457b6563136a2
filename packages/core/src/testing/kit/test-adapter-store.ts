/**
 * The test adapter's books and the record helpers every operation uses: ids in sequence per kind, look-ups that
 * answer the provider's 404, and copies, so a caller never holds a record the books still change.
 */
import type { AdapterTypes } from '../../adapter.js';
import type { ProviderApiError } from '../../errors.js';
import type { Checkout, Customer, Payment, ProviderName, Refund, Subscription } from '../../records.js';

/** The declared types of the test adapter. */
export interface TestAdapterTypes extends AdapterTypes {
  provider: ProviderName;
  metadata: {
    /** `capture: 'manual'`: a paid payment waits in `requires_capture` for `payments.capture`. */
    'payments.create': { capture?: 'automatic' | 'manual' };
  };
  rawEvents: Record<never, never>;
  checkout: Checkout;
}

/** The records the in-memory provider holds, by kind. */
export interface TestBooks {
  payments: Payment[];
  checkouts: Checkout[];
  refunds: Refund[];
  customers: Customer[];
  subscriptions: Subscription[];
}

type Kind = keyof TestBooks;
type RecordOf<K extends Kind> = TestBooks[K][number];

/** The empty books and the helpers over them. */
export function createTestStore(context: {
  provider: ProviderName;
  refuse(status: number, message: string): ProviderApiError;
}) {
  const books: TestBooks = { payments: [], checkouts: [], refunds: [], customers: [], subscriptions: [] };
  const sequences = new Map<string, number>();
  const common = () => ({ provider: context.provider, livemode: false, request_id: null, raw: {} });
  const copy = <R>(record: R): R => structuredClone(record);

  const nextId = (prefix: string) => {
    const next = (sequences.get(prefix) ?? 0) + 1;
    sequences.set(prefix, next);
    return `${prefix}_test_${String(next).padStart(6, '0')}`;
  };
  const find = <K extends Kind>(kind: K, id: string): RecordOf<K> | undefined =>
    (books[kind] as RecordOf<K>[]).find((record) => record.id === id);
  const mustFind = <K extends Kind>(kind: K, id: string): RecordOf<K> => {
    const record = find(kind, id);
    if (!record) throw context.refuse(404, `No ${kind.slice(0, -1)} ${id}.`);
    return record;
  };
  const remove = (kind: Kind, id: string) => {
    const list = books[kind] as { id: string }[];
    const index = list.findIndex((record) => record.id === id);
    if (index < 0) throw context.refuse(404, `No ${kind.slice(0, -1)} ${id}.`);
    list.splice(index, 1);
  };
  const retrieve = async <K extends Kind>(kind: K, id: string) => {
    const record = find(kind, id);
    return record ? copy(record) : null;
  };
  const update = async <K extends Kind>(
    kind: K,
    id: string,
    params: { metadata?: Record<string, string> },
  ) => {
    const record = mustFind(kind, id);
    record.metadata = { ...record.metadata, ...params.metadata };
    return copy(record);
  };
  return { books, common, copy, nextId, find, mustFind, remove, retrieve, update };
}
