/**
 * The toolkit's send-once pattern (docs/architecture.md#idempotency): a money call the provider cannot deduplicate
 * is checkpointed before it is sent, its answer after, and a repeat returns the answer, asks the adapter's lookup,
 * or refuses to send it again.
 */
import { describe, expect, it, vi } from 'vitest';
import type { IdempotencyContext } from '../src/adapter.js';
import {
  NetworkError,
  resumeOnce,
  type SentOncePoint,
  StoreError,
  sendOnce,
} from '../src/adapter-toolkit.js';
import type { JsonValue } from '../src/stores.js';

/** A ledger entry in memory: its recovery point, and every checkpoint written. */
function ledger(recoveryPoint: JsonValue | null = null, failing = false) {
  const written: JsonValue[] = [];
  const context: IdempotencyContext = {
    key: 'refund-42',
    recoveryPoint,
    checkpoint: async (point) => {
      if (failing) throw new StoreError('store down', { step: 'checkpoint', reason: 'unavailable' });
      written.push(point);
    },
  };
  return { context, written };
}

const read = (point: JsonValue) => point as unknown as SentOncePoint;
const unanswered = () => new NetworkError('may have landed', { outcome: 'unknown' });

describe('sendOnce', () => {
  it('records where the call got to before sending it, and its answer after', async () => {
    const { context, written } = ledger();
    const send = vi.fn(async () => {
      expect(written).toEqual([{ step: 'create_sent', refId: 'ref-1' }]);
      return { result: { id: 're_1' }, answered: { refundId: 're_1' } };
    });
    const result = await sendOnce({
      operation: 'refunds.create',
      provider: 'Provider Q',
      idempotency: context,
      sent: { refId: 'ref-1' },
      send,
    });
    expect(result).toEqual({ id: 're_1' });
    expect(written).toEqual([
      { step: 'create_sent', refId: 'ref-1' },
      { step: 'created', refId: 'ref-1', refundId: 're_1', result: { id: 're_1' } },
    ]);
  });

  it('sends nothing when the checkpoint cannot be written, and says so', async () => {
    const { context } = ledger(null, true);
    const send = vi.fn();
    const error = await sendOnce({
      operation: 'refunds.create',
      provider: 'Provider Q',
      idempotency: context,
      sent: { refId: 'ref-1' },
      send,
    }).catch((thrown: unknown) => thrown);
    expect(send).not.toHaveBeenCalled();
    expect(StoreError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ step: 'checkpoint', context: { refId: 'ref-1', sent: false } });
    expect((error as Error).message).toContain('before the call to Provider Q');
  });
});

describe('resumeOnce', () => {
  const sent = { step: 'create_sent', refId: 'ref-1' };

  it('goes ahead for a new key, and returns the recorded answer of an answered one', async () => {
    expect(await resumeOnce({ idempotency: ledger().context, read, unanswered })).toBeUndefined();
    const answered = ledger({ step: 'created', refId: 'ref-1', result: { id: 're_1' } }).context;
    expect(await resumeOnce({ idempotency: answered, read, unanswered })).toEqual({ result: { id: 're_1' } });
  });

  it('asks the lookup when the answer never arrived: its record, or a go-ahead when it proves nothing landed', async () => {
    const lookup = vi.fn(async () => ({ id: 're_found' }));
    expect(await resumeOnce({ idempotency: ledger(sent).context, read, lookup, unanswered })).toEqual({
      result: { id: 're_found' },
    });
    expect(lookup).toHaveBeenCalledWith(sent);
    const absent = async () => null;
    expect(
      await resumeOnce({ idempotency: ledger(sent).context, read, lookup: absent, unanswered }),
    ).toBeUndefined();
  });

  it('refuses to send again when nothing can tell whether the call landed', async () => {
    const cannotTell = async () => undefined;
    for (const lookup of [cannotTell, undefined]) {
      const error = await resumeOnce({
        idempotency: ledger(sent).context,
        read,
        ...(lookup ? { lookup } : {}),
        unanswered,
      }).catch((thrown: unknown) => thrown);
      expect(NetworkError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ outcome: 'unknown' });
    }
  });
});
