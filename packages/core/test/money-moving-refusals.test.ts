import { moneyMovingRefusal, ProviderApiError, refusalMayHaveLanded } from '@pay/core/adapter';
import { describe, expect, it } from 'vitest';

function refusal(status: number, providerCode?: string): ProviderApiError {
  return new ProviderApiError(
    { provider: 'providerX', status, providerCode, providerMessage: 'Refused', retryable: status >= 500 },
    { context: { reference: 'ref-1' } },
  );
}

const first = { earlierAttemptMayHaveReached: false };
const afterEarlierAttempt = { earlierAttemptMayHaveReached: true };

const RECONCILE =
  ' The provider may have processed an earlier attempt: look it up with retrievePayment before sending again.';

describe('moneyMovingRefusal: what a refused call that moves money proves', () => {
  it('a 4xx to the first attempt proves nothing was processed: the refusal is thrown as the provider gave it', () => {
    const error = refusal(422, '99');
    expect(moneyMovingRefusal(error, first)).toBe(error);
  });

  it('a 4xx after an earlier attempt may have reached the provider: outcome unknown, not retryable', () => {
    const thrown = moneyMovingRefusal(refusal(422, '99'), afterEarlierAttempt);
    expect(thrown).toBeInstanceOf(ProviderApiError);
    expect(thrown).toMatchObject({
      outcome: 'unknown',
      retryable: false,
      status: 422,
      providerCode: '99',
      context: { reference: 'ref-1' },
      message: `providerX answered HTTP 422 (code 99) to a call that moves money, and the call (or an earlier attempt of it) may have been processed.${RECONCILE}`,
    });
  });

  it.each([500, 502, 503, 408])(
    'HTTP %i (a gateway can send it after the provider processed the call): outcome unknown',
    (status) => {
      const thrown = moneyMovingRefusal(refusal(status), first);
      expect(thrown.outcome).toBe('unknown');
      expect(thrown.retryable).toBe(false);
      expect(thrown.message).toBe(
        `providerX answered HTTP ${status} to a call that moves money, and the call (or an earlier attempt of it) may have been processed.${RECONCILE}`,
      );
    },
  );

  it('a provider-specific sign (a duplicate reference, a named transaction) makes a 4xx unknown too', () => {
    expect(moneyMovingRefusal(refusal(409, 'R9'), first, { mayHaveLanded: true }).outcome).toBe('unknown');
    expect(moneyMovingRefusal(refusal(409, 'R9'), first, { mayHaveLanded: false }).outcome).toBeUndefined();
  });

  it('names what the call may have been processed as, with the context the adapter gives', () => {
    const thrown = moneyMovingRefusal(refusal(400, '1400'), first, {
      mayHaveLanded: true,
      processedAs: 'transaction 7Q2K',
      context: { reference: 'ref-1', transId: '7Q2K' },
    });
    expect(thrown).toMatchObject({
      outcome: 'unknown',
      context: { reference: 'ref-1', transId: '7Q2K' },
      message: `providerX answered HTTP 400 (code 1400) to a call that moves money, and the call (or an earlier attempt of it) may have been processed as transaction 7Q2K.${RECONCILE}`,
    });
  });

  it('keeps the provider answer as the cause', () => {
    const error = refusal(502);
    expect(moneyMovingRefusal(error, first).cause).toBe(error);
  });
});

describe('refusalMayHaveLanded: the one rule adapters with their own messages share', () => {
  it('a 4xx to the first attempt, without a provider sign, proves nothing moved', () => {
    expect(refusalMayHaveLanded({ status: 400, earlierAttemptMayHaveReached: false })).toBe(false);
    expect(refusalMayHaveLanded({ status: 409, earlierAttemptMayHaveReached: false }, false)).toBe(false);
  });

  it.each([500, 502, 503, 504, 408])('HTTP %i may have landed', (status) => {
    expect(refusalMayHaveLanded({ status, earlierAttemptMayHaveReached: false })).toBe(true);
  });

  it('a 4xx after an earlier attempt may have reached the provider, or with a provider sign, may have landed', () => {
    expect(refusalMayHaveLanded({ status: 400, earlierAttemptMayHaveReached: true })).toBe(true);
    expect(refusalMayHaveLanded({ status: 400, earlierAttemptMayHaveReached: false }, true)).toBe(true);
  });
});
