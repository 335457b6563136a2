import { describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  createPay,
  Pay,
  ProviderNotSupportedError,
  ValidationError,
} from '../src/index.js';
import { testAdapter } from './fixtures.js';

describe('createPay and the adapter contract', () => {
  it('routes namespace calls to the adapter with validated, normalised input', async () => {
    const calls: unknown[] = [];
    const pay = createPay(testAdapter(calls));
    const result = await pay.payments.create({
      amount: 10.5,
      currency: 'ngn',
      customer: { email: 'ada@example.com' },
    });
    expect(result.id).toBe('p1');
    expect(calls).toEqual([{ amount: 10.5, currency: 'NGN', customer: { email: 'ada@example.com' } }]);
    expect(await pay.payments.retrieve('missing')).toBeNull();
  });

  it('also works as new Pay(adapter) and exposes the adapter', () => {
    const adapter = testAdapter();
    const pay = new Pay(adapter);
    expect(pay.adapter).toBe(adapter);
  });

  it('answers supports() from the declared capabilities, with no I/O', () => {
    const pay = createPay(testAdapter());
    expect(pay.supports('payments.create')).toBe(true);
    expect(pay.supports('refunds.create')).toBe(false);
    expect(pay.adapter.capabilities).toEqual(['payments.create', 'payments.retrieve']);
  });

  it('throws ProviderNotSupportedError before validating the input of an unsupported operation', async () => {
    const calls: unknown[] = [];
    const pay = createPay(testAdapter(calls));
    const error = await pay.customers.create({ bogus: 1 } as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderNotSupportedError);
    expect(error).toMatchObject({
      provider: 'providerN',
      operation: 'customers.create',
      reason: 'the provider has no customer storage',
    });
    await expect(pay.refunds.create({ payment_id: 'x' })).rejects.toMatchObject({
      code: 'provider_not_supported',
      reason: 'the provider offers no refunds.create call',
    });
    expect(calls).toEqual([]);
  });

  it('refuses unknown top-level fields instead of dropping them', async () => {
    const calls: unknown[] = [];
    const pay = createPay(testAdapter(calls));
    const error = await pay.payments.create({ amount: 1, amonut: 2 } as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues).toEqual([{ path: 'amonut', message: 'is not a known field' }]);
    expect(calls).toEqual([]);
  });

  it('reports every bad field at once, before the adapter runs', async () => {
    const calls: unknown[] = [];
    const pay = createPay(testAdapter(calls));
    const error = (await pay.payments
      .create({ amount: Number.NaN, currency: 'EURO', customer: { email: 'not-an-email' } })
      .catch((e: unknown) => e)) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.issues.map((issue) => issue.path).sort()).toEqual(['amount', 'currency', 'customer.email']);
    await expect(pay.payments.create({ amount: -5 })).rejects.toMatchObject({
      issues: [{ path: 'amount', message: 'must not be negative' }],
    });
    await expect(pay.payments.retrieve('')).rejects.toMatchObject({
      issues: [{ path: 'id', message: 'must not be empty' }],
    });
    expect(calls).toEqual([]);
  });

  it('refuses to set up webhooks without the secret the provider needs', () => {
    const pay = createPay(testAdapter());
    expect(() => pay.webhooks.setup({ webhookSecret: null })).toThrow(ConfigurationError);
  });
});
