import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { defineAdapter, toValidationIssues } from '../src/adapter-toolkit.js';
import { createHttpClient } from '../src/http/index.js';
import {
  ConfigurationError,
  createPay,
  Pay,
  ProviderApiError,
  ProviderNotSupportedError,
  ValidationError,
} from '../src/index.js';
import { type TestTypes, testAdapter } from './fixtures.js';

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

describe('what defineAdapter reads of a definition, and when', () => {
  it('reads the operations, checks and reasons when the adapter is built, prototype methods included', async () => {
    class Operations {
      async retrievePayment(id: string) {
        return { id } as never;
      }
    }
    const unsupported: Record<string, string> = { 'payments.create': 'read-only adapter' };
    const definition = {
      provider: 'providerN' as const,
      operations: new Operations(),
      unsupported,
      webhooks: { secret: 'required' as const, verify: async () => [] },
    };
    const adapter = defineAdapter<TestTypes>(definition as never);
    // Changed after building: the adapter keeps what it read.
    unsupported['payments.create'] = 'changed later';
    (definition as { operations: object }).operations = {};
    expect(adapter.capabilities).toEqual(['payments.retrieve']);
    await expect(adapter.retrievePayment('tx-1')).resolves.toEqual({ id: 'tx-1' });
    await expect(adapter.createPayment({ amount: 1, currency: 'EUR' } as never)).rejects.toMatchObject({
      code: 'provider_not_supported',
      message: expect.stringContaining('read-only adapter'),
    });
  });
});

describe('core redacts every error an adapter operation throws (docs/architecture.md#redaction)', () => {
  it('removes the sent Basic credential, its decoded secret and a configured 3-character secret, even from a careless adapter', async () => {
    const authorization = `Basic ${btoa('merchant-5:Zq9-long-secret')}`;
    // A gateway that echoes what it was sent, in the body and in a header.
    const echo: typeof fetch = async (input, init) => {
      const sent = new Request(input, init).headers.get('authorization') ?? '';
      return new Response(JSON.stringify({ message: `denied ${sent} (${atob(sent.slice(6))}) pin=abc` }), {
        status: 403,
        headers: { 'x-echo': sent },
      });
    };
    const http = createHttpClient({
      provider: 'providerN',
      baseUrl: 'https://api.provider.example',
      fetch: echo,
      secrets: ['abc'],
      authorization: { header: async () => authorization },
    });
    const adapter = defineAdapter<TestTypes>({
      provider: 'providerN',
      operations: {
        async retrievePayment(id) {
          const reply = await http.send({ method: 'GET', path: `/tx/${id}`, retrySafe: true });
          // Deliberately unredacted: core must catch it at the boundary.
          throw new ProviderApiError(
            {
              provider: 'providerN',
              status: reply.status,
              providerCode: reply.headers.get('x-echo') ?? undefined,
              providerMessage: reply.text,
            },
            { context: { echoed: reply.headers.get('x-echo') } },
          );
        },
      },
      webhooks: { ...testAdapter().webhooks, rawEventNames: ['providerN.SUCCESSFUL_TRANSACTION'] },
    });
    const error = (await createPay(adapter)
      .payments.retrieve('p1')
      .catch((e: unknown) => e)) as ProviderApiError;
    expect(ProviderApiError.isInstance(error)).toBe(true);
    const everything = [
      JSON.stringify(error),
      error.message,
      error.stack,
      JSON.stringify(error.toJSON()),
    ].join('\n');
    for (const leak of [btoa('merchant-5:Zq9-long-secret'), 'Zq9-long-secret', 'pin=abc'])
      expect(everything).not.toContain(leak);
    expect(error.providerMessage).toContain('pin=[REDACTED]');
  });
});

describe('metadata keys with reserved names (docs/architecture.md#adapter-operations)', () => {
  it.each(['constructor', 'prototype', '__proto__'])(
    'refuses metadata key %s by name, before the adapter runs',
    async (key) => {
      const calls: unknown[] = [];
      const pay = createPay(testAdapter(calls));
      const metadata = JSON.parse(`{"orderId":"o-1","${key}":"x"}`) as Record<string, string>;
      const error = await pay.payments.create({ amount: 1, metadata }).catch((e: unknown) => e);
      expect(ValidationError.isInstance(error)).toBe(true);
      expect((error as ValidationError).issues).toEqual([
        { path: `metadata.${key}`, message: `"${key}" is a reserved name and cannot be used as a key` },
      ]);
      expect(calls).toEqual([]);
    },
  );

  it('refuses a reserved name inside provider_metadata too', async () => {
    const pay = createPay(testAdapter());
    const provider_metadata = JSON.parse('{"sender":{"constructor":"x"}}') as Record<string, unknown>;
    await expect(pay.payments.create({ amount: 1, provider_metadata })).rejects.toMatchObject({
      issues: [{ path: 'provider_metadata.sender.constructor' }],
    });
  });

  it('refuses provider_metadata that refers back to itself, naming where, before the adapter runs', async () => {
    const calls: unknown[] = [];
    const sender: Record<string, unknown> = { name: 'Ada', limits: [{ daily: 10 }] };
    (sender.limits as Record<string, unknown>[]).push(sender);
    const error = await createPay(testAdapter(calls))
      .payments.create({ amount: 1, provider_metadata: { sender } })
      .catch((e: unknown) => e);
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as ValidationError).issues).toEqual([
      {
        path: 'provider_metadata.sender.limits.1',
        message: 'refers back to an object that contains it (JSON cannot carry a cycle)',
      },
    ]);
    expect(calls).toEqual([]);
  });
});

describe('identifiers that would change a URL path (docs/architecture.md#http-client)', () => {
  it.each(['.', '..'])('refuses id %j naming the argument, before the adapter runs', async (id) => {
    const calls: unknown[] = [];
    const error = await createPay(testAdapter(calls))
      .payments.retrieve(id)
      .catch((e: unknown) => e);
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as ValidationError).issues).toEqual([
      { path: 'id', message: `must not be "${id}" (it would change the URL path)` },
    ]);
    expect(calls).toEqual([]);
  });
});

describe('validation messages never quote the value received', () => {
  it('keeps the expectation and drops the value, whatever valibot wording carries it', () => {
    const issues = toValidationIssues([
      ...(v.safeParse(v.pipe(v.number(), v.integer()), 2.5).issues ?? []),
      ...(v.safeParse(v.string(), 4242424242424242).issues ?? []),
    ]);
    expect(issues.map((issue) => issue.message)).toEqual([
      'Invalid integer',
      'Invalid type: Expected string',
    ]);
    expect(JSON.stringify(issues)).not.toMatch(/2\.5|4242/);
  });
});
