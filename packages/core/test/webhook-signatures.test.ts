import { createHmac, generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  hmacSignature,
  type SignatureScheme,
  verifyHmacHeader,
  verifyRsaHeader,
  type WebhookDelivery,
  WebhookVerificationError,
} from '../src/adapter-toolkit.js';

const BODY = '{"eventType":"SUCCESSFUL_TRANSACTION","eventData":{"amount":19.99}}';

function delivery(headers: Record<string, string>, body = BODY): WebhookDelivery {
  return { rawBody: new TextEncoder().encode(body), body, headers, fullUrl: 'https://shop.example/webhooks' };
}

/** The refusal `promise` ends with (it must be a `WebhookVerificationError`). */
async function refusal(promise: Promise<unknown>): Promise<WebhookVerificationError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(WebhookVerificationError);
  return error as WebhookVerificationError;
}

const hmac = (algorithm: string, secret: string, content: string, encoding: 'hex' | 'base64' = 'hex') =>
  createHmac(algorithm, secret).update(content).digest(encoding);

describe('verifyHmacHeader: the whole header is one signature (docs/architecture.md#webhook-signatures)', () => {
  const scheme: SignatureScheme = { algorithm: 'SHA-512', header: 'X-Signature', encoding: 'hex' };

  it('accepts the HMAC of the raw body and names the secret that signed it, in any hex case', async () => {
    const signature = hmac('sha512', 'new', BODY);
    expect(await verifyHmacHeader(delivery({ 'x-signature': signature }), ['new'], scheme)).toEqual({
      secretIndex: 0,
      timestamp: undefined,
    });
    const upper = delivery({ 'x-signature': ` ${signature.toUpperCase()} ` });
    expect((await verifyHmacHeader(upper, ['old', 'new'], scheme)).secretIndex).toBe(1);
  });

  it('refuses a forged, tampered, truncated or wrongly encoded signature as invalid_signature', async () => {
    const signature = hmac('sha512', 'secret', BODY);
    const cases = [
      delivery({ 'x-signature': hmac('sha512', 'guessed', BODY) }),
      delivery({ 'x-signature': signature }, BODY.replace('19.99', '1999')),
      delivery({ 'x-signature': signature.slice(0, -2) }),
      delivery({ 'x-signature': signature.slice(0, -1) }),
      delivery({ 'x-signature': hmac('sha512', 'secret', BODY, 'base64') }),
      delivery({ 'x-signature': hmac('sha256', 'secret', BODY) }),
      delivery({ 'x-signature': `${signature}00` }),
    ];
    for (const forged of cases)
      expect((await refusal(verifyHmacHeader(forged, ['secret'], scheme))).reason).toBe('invalid_signature');
  });

  it('refuses a delivery without the header, and any delivery when no secret is configured', async () => {
    const missing = await refusal(verifyHmacHeader(delivery({}), ['secret'], scheme));
    expect(missing).toMatchObject({ reason: 'missing_signature', status: 400 });
    expect(missing.message).toContain('X-Signature');
    const signed = delivery({ 'x-signature': hmac('sha512', 'secret', BODY) });
    expect((await refusal(verifyHmacHeader(signed, [], scheme))).reason).toBe('missing_secret');
  });

  it("says each failure in the scheme's own words, a malformed signature as a mismatch unless told", async () => {
    const worded = { ...scheme, messages: { missingSignature: 'no providerX-signature', mismatch: 'wrong' } };
    expect((await refusal(verifyHmacHeader(delivery({}), ['s'], worded))).message).toBe(
      'no providerX-signature',
    );
    const garbage = delivery({ 'x-signature': 'not hex' });
    expect((await refusal(verifyHmacHeader(garbage, ['s'], worded))).message).toBe('wrong');
  });

  it('reads base64 signatures, refusing hex ones, under the algorithm given', async () => {
    const base64: SignatureScheme = { header: 'x-hmac', encoding: 'base64' };
    const good = delivery({ 'x-hmac': hmac('sha256', 'secret', BODY, 'base64') });
    expect((await verifyHmacHeader(good, ['secret'], base64)).secretIndex).toBe(0);
    const hex = delivery({ 'x-hmac': hmac('sha256', 'secret', BODY) });
    expect((await refusal(verifyHmacHeader(hex, ['secret'], base64))).reason).toBe('invalid_signature');
  });
});

describe('verifyHmacHeader: a timestamp and several signatures in one header', () => {
  const NOW = 1_700_000_000;
  const scheme: SignatureScheme = {
    header: 'webhook-signature',
    encoding: 'hex',
    parts: { timestamp: 't', signature: 'v1' },
    tolerance: { maxAgeSeconds: 300, maxFutureSeconds: 60, now: () => NOW * 1000 },
    signedContent: (rawBody, timestamp) => [`${timestamp}.`, rawBody],
  };
  const signed = (t: number, secret = 'secret', body = BODY) => hmac('sha256', secret, `${t}.${body}`);

  it('accepts a header whose second signature is the one of a secret given, and returns its timestamp', async () => {
    const header = `t=${NOW}, v1=${signed(NOW, 'retired')}, v1=${signed(NOW)}`;
    expect(await verifyHmacHeader(delivery({ 'webhook-signature': header }), ['secret'], scheme)).toEqual({
      secretIndex: 0,
      timestamp: NOW,
    });
  });

  it('refuses a timestamp outside the tolerance as stale_timestamp, before any signature is checked', async () => {
    for (const t of [NOW - 301, NOW + 61]) {
      const header = `t=${t},v1=${signed(t)}`;
      const error = await refusal(
        verifyHmacHeader(delivery({ 'webhook-signature': header }), ['secret'], scheme),
      );
      expect(error.reason).toBe('stale_timestamp');
    }
    const edge = `t=${NOW - 300},v1=${signed(NOW - 300)}`;
    expect(
      (await verifyHmacHeader(delivery({ 'webhook-signature': edge }), ['secret'], scheme)).timestamp,
    ).toBe(NOW - 300);
  });

  it('refuses a replay with a new timestamp, a header without timestamp or signature, and junk parts', async () => {
    const headers = [
      `t=${NOW},v1=${signed(NOW - 10)}`,
      `v1=${signed(NOW)}`,
      `t=${NOW}`,
      `t=${NOW},v1=${signed(NOW)},junk`,
      `t=soon,v1=${signed(NOW)}`,
      `t=${NOW},v1=${signed(NOW)},v1=zz`,
    ];
    for (const header of headers) {
      const error = await refusal(
        verifyHmacHeader(delivery({ 'webhook-signature': header }), ['secret'], scheme),
      );
      expect(error.reason, header).toMatch(/^(invalid_signature|stale_timestamp)$/);
    }
    const missingTimestamp = await refusal(
      verifyHmacHeader(delivery({ 'webhook-signature': `v1=${signed(NOW)}` }), ['secret'], scheme),
    );
    expect(missingTimestamp.reason).toBe('invalid_signature');
  });
});

describe('verifyRsaHeader (docs/architecture.md#webhook-signatures)', () => {
  const keyPair = () => generateKeyPairSync('rsa', { modulusLength: 2048 });
  const current = keyPair();
  const other = keyPair();
  const spki = (pair: typeof current) =>
    pair.publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
  const NOW = 1_700_000_000;
  const scheme = {
    header: 'Signature',
    encoding: 'base64' as const,
    parts: { timestamp: 't', signature: 's' },
    tolerance: { maxAgeSeconds: 3900, maxFutureSeconds: 300, now: () => NOW * 1000 },
    signedContent: (rawBody: Uint8Array, timestamp: number | undefined) => [
      `${timestamp}.shop.example.`,
      rawBody,
    ],
  };
  const rsaSigned = (content: string, pair = current) =>
    sign('sha256', Buffer.from(content), pair.privateKey).toString('base64');

  it('verifies with the key that signed, among several (a rotation), and names it', async () => {
    const header = `t=${NOW}, s=${rsaSigned(`${NOW}.shop.example.${BODY}`)}`;
    const verified = await verifyRsaHeader(
      delivery({ signature: header }),
      [spki(other), spki(current)],
      scheme,
    );
    expect(verified).toEqual({ secretIndex: 1, timestamp: NOW });
  });

  it('refuses a tampered body, another signed host, a foreign key, a stale timestamp and bad base64', async () => {
    const good = rsaSigned(`${NOW}.shop.example.${BODY}`);
    const cases: [Record<string, string>, string, string][] = [
      [{ signature: `t=${NOW}, s=${good}` }, BODY.replace('19.99', '0.01'), 'invalid_signature'],
      [{ signature: `t=${NOW}, s=${rsaSigned(`${NOW}.evil.example.${BODY}`)}` }, BODY, 'invalid_signature'],
      [
        { signature: `t=${NOW}, s=${rsaSigned(`${NOW}.shop.example.${BODY}`, other)}` },
        BODY,
        'invalid_signature',
      ],
      [{ signature: `t=${NOW - 4000}, s=${good}` }, BODY, 'stale_timestamp'],
      [{ signature: `t=${NOW}, s=${good.slice(1)}` }, BODY, 'invalid_signature'],
      [{}, BODY, 'missing_signature'],
    ];
    for (const [headers, body, reason] of cases) {
      const error = await refusal(verifyRsaHeader(delivery(headers, body), [spki(current)], scheme));
      expect(error.reason).toBe(reason);
    }
  });
});

describe('hmacSignature', () => {
  it('signs as the provider does, in hex or base64, under the algorithm given', async () => {
    expect(await hmacSignature('secret', BODY, { algorithm: 'SHA-512', encoding: 'hex' })).toBe(
      hmac('sha512', 'secret', BODY),
    );
    expect(await hmacSignature('secret', new TextEncoder().encode(BODY), { encoding: 'base64' })).toBe(
      hmac('sha256', 'secret', BODY, 'base64'),
    );
    expect(await hmacSignature('secret', BODY, { algorithm: 'SHA-1', encoding: 'hex' })).toBe(
      hmac('sha1', 'secret', BODY),
    );
  });
});
