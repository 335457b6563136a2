/**
 * The simulator's wire checks, called directly over loopback HTTP (no adapter): what it refuses and how, so a
 * wrong adapter request is caught the way the provider would catch it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  generateProviderTKeyPair,
  type ProviderTSimulator,
  startProviderTSimulator,
} from '../src/testing/index.js';

let sim: ProviderTSimulator;
let token: string;

beforeAll(async () => {
  sim = await startProviderTSimulator({ keyPair: generateProviderTKeyPair() });
  const basic = Buffer.from(`${sim.credentials.clientId}:${sim.credentials.clientSecret}`).toString('base64');
  const login = await fetch(`${sim.url}/oauth/accesstoken?grant_type=client_credentials`, {
    headers: { authorization: `Basic ${basic}` },
  });
  token = ((await login.json()) as { access_token: string }).access_token;
});

afterAll(() => sim.close());

const identity = () => ({
  targetAudience: 'AGENT_FACING',
  agentPartnerId: sim.credentials.agentPartnerId,
  userLanguage: 'en-US',
  operatorId: sim.credentials.operatorId,
  posId: '01',
});

async function call(method: string, path: string, body?: unknown, bearer: string | null = token) {
  const response = await fetch(`${sim.url}${path}`, {
    method,
    headers: {
      'content-type': 'application/json',
      'x-client-request-id': crypto.randomUUID(),
      ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { errors?: { code: string }[] } };
}

describe('the simulator on the wire', () => {
  it.each(['constructor', 'toString', '__proto__'])(
    'refuses the service option %s, a name every object inherits, as not offered',
    async (serviceOptionCode) => {
      const quotesBefore = sim.quotes;
      const reply = await call('POST', '/transfer/v1/transactions/quote', {
        ...identity(),
        destinationCountryCode: 'MEX',
        serviceOptionCode,
        sendAmount: { value: 100, currencyCode: 'USD' },
      });
      expect(reply.status).toBe(400);
      expect(reply.body.errors?.[0]?.code).toBe('INVALID_SERVICE_OPTION');
      expect(sim.quotes).toBe(quotesBefore);
    },
  );

  it('answers an unknown path 401 without a token and 404 with one', async () => {
    expect((await call('GET', '/transfer/v9/nothing', undefined, null)).status).toBe(401);
    const found = await call('GET', '/transfer/v9/nothing');
    expect(found.status).toBe(404);
    expect(found.body.errors?.[0]?.code).toBe('NOT_FOUND');
  });

  it('answers an unknown transaction with 400 and code 697, as the sandbox does', async () => {
    const reply = await call(
      'GET',
      `/status/v1/transactions/${crypto.randomUUID()}?agentPartnerId=${sim.credentials.agentPartnerId}&userLanguage=en-US&targetAudience=AGENT_FACING`,
    );
    expect(reply).toEqual({
      status: 400,
      body: { errors: [{ category: 'IP-20000', code: '697', message: 'Invalid Transaction ID' }] },
    });
  });
});
