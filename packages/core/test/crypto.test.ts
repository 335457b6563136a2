import { createHmac, generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import {
  basicAuthorization,
  fromBase64,
  fromHex,
  hmacSha512Hex,
  spkiBytes,
  timingSafeEqual,
  timingSafeIndexOf,
  toBase64,
  toHex,
  verifyRsaSha256,
} from '../src/crypto.js';

describe('crypto helpers', () => {
  it('finds which of several secrets a value equals, comparing every one', () => {
    expect(timingSafeIndexOf('new', ['new', 'old'])).toBe(0);
    expect(timingSafeIndexOf('old', ['new', 'old'])).toBe(1);
    expect(timingSafeIndexOf('same', ['same', 'same'])).toBe(0);
    expect(timingSafeIndexOf('neither', ['new', 'old'])).toBe(-1);
    expect(timingSafeIndexOf('ne', ['new'])).toBe(-1);
    expect(timingSafeIndexOf('x', [])).toBe(-1);
  });

  it('computes the same HMAC-SHA512 hex as Node does', async () => {
    const body = '{"eventType":"SUCCESSFUL_TRANSACTION"}';
    const expected = createHmac('sha512', 'whsec_test').update(body).digest('hex');
    expect(await hmacSha512Hex('whsec_test', body)).toBe(expected);
    expect(await hmacSha512Hex('whsec_test', new TextEncoder().encode(body))).toBe(expected);
  });

  it('computes the HMAC-SHA512 with node:crypto where the runtime has it, without a Web Crypto round trip', async () => {
    const subtleSign = vi.spyOn(crypto.subtle, 'sign');
    try {
      const body = '{"eventType":"SUCCESSFUL_TRANSACTION","eventData":{"customer":{"name":"Zoë"}}}';
      expect(await hmacSha512Hex('whsec_test', body)).toBe(
        createHmac('sha512', 'whsec_test').update(body).digest('hex'),
      );
      expect(subtleSign).not.toHaveBeenCalled();
    } finally {
      subtleSign.mockRestore();
    }
  });

  it('computes the same HMAC-SHA512 with Web Crypto on a runtime without node:crypto (edge runtimes)', async () => {
    const runtime = process as { getBuiltinModule: (id: string) => unknown };
    const original = runtime.getBuiltinModule.bind(process);
    const lookup = vi
      .spyOn(runtime, 'getBuiltinModule')
      .mockImplementation((id: string) => (id === 'node:crypto' ? undefined : original(id)));
    const subtleSign = vi.spyOn(crypto.subtle, 'sign');
    try {
      const body = '{"eventType":"SUCCESSFUL_TRANSACTION","eventData":{"customer":{"name":"Zoë"}}}';
      const expected = createHmac('sha512', 'whsec_test').update(body).digest('hex');
      expect(await hmacSha512Hex('whsec_test', body)).toBe(expected);
      expect(await hmacSha512Hex('whsec_test', new TextEncoder().encode(body))).toBe(expected);
      expect(subtleSign).toHaveBeenCalledTimes(2);
    } finally {
      lookup.mockRestore();
      subtleSign.mockRestore();
    }
  });

  it('refuses an empty HMAC secret as Web Crypto does, on every runtime', async () => {
    await expect(hmacSha512Hex('', 'body')).rejects.toMatchObject({ name: 'DataError' });
  });

  it('compares secrets in constant time, false for any difference including length', () => {
    expect(timingSafeEqual('abc', 'abc')).toBe(true);
    expect(timingSafeEqual('abc', 'abd')).toBe(false);
    expect(timingSafeEqual('abc', 'abcd')).toBe(false);
    expect(timingSafeEqual('', 'a')).toBe(false);
    expect(timingSafeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2]))).toBe(true);
  });

  it('decodes hex and base64 strictly, refusing malformed input', () => {
    expect(fromHex('0aff')).toEqual(new Uint8Array([10, 255]));
    expect(fromHex('0af')).toBeUndefined();
    expect(fromHex('zz')).toBeUndefined();
    expect(fromBase64('AQID')).toEqual(new Uint8Array([1, 2, 3]));
    expect(fromBase64('AQI')).toBeUndefined();
    expect(fromBase64('A*ID')).toBeUndefined();
    expect(toHex(new Uint8Array([0, 15, 255]))).toBe('000fff');
    expect(toBase64(new Uint8Array([1, 2, 3]))).toBe('AQID');
  });

  it('builds a Basic authorization header from UTF-8 credentials', () => {
    expect(basicAuthorization('merchant', 's3cret')).toBe(`Basic ${btoa('merchant:s3cret')}`);
  });

  it('verifies RSA-SHA256 signatures with a base64 DER or PEM public key', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const der = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const content = '1700000000.shop.example.{"eventId":"e1"}';
    const signature = new Uint8Array(sign('sha256', Buffer.from(content), privateKey));
    expect(await verifyRsaSha256(der, content, signature)).toBe(true);
    expect(await verifyRsaSha256(pem, content, signature)).toBe(true);
    expect(await verifyRsaSha256(der, `${content} `, signature)).toBe(false);
    expect(spkiBytes('not base64!')).toBeUndefined();
    await expect(verifyRsaSha256('not base64!', content, signature)).rejects.toThrow(TypeError);
  });

  it('checks RSA signatures on Node without a Web Crypto import or verify per delivery', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const der = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
    const content = '1700000001.shop.example.{"eventId":"e2"}';
    const signature = new Uint8Array(sign('sha256', Buffer.from(content), privateKey));
    const importKey = vi.spyOn(crypto.subtle, 'importKey');
    const verify = vi.spyOn(crypto.subtle, 'verify');
    try {
      expect(await verifyRsaSha256(der, content, signature)).toBe(true);
      expect(await verifyRsaSha256(der, content, signature.subarray(1))).toBe(false);
      expect(await verifyRsaSha256(der, `${content} `, signature)).toBe(false);
      expect(importKey).not.toHaveBeenCalled();
      expect(verify).not.toHaveBeenCalled();
    } finally {
      importKey.mockRestore();
      verify.mockRestore();
    }
  });

  it('verifies RSA signatures with Web Crypto where the runtime has no node:crypto, and refuses a key that is not RSA alike', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const der = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey;
    const ecDer = ec.export({ type: 'spki', format: 'der' }).toString('base64');
    const content = '1700000002.shop.example.{"eventId":"e3"}';
    const signature = new Uint8Array(sign('sha256', Buffer.from(content), privateKey));
    // On Node, an EC key is refused by Web Crypto's import, as it always was.
    await expect(verifyRsaSha256(ecDer, content, signature)).rejects.toThrow();
    const edge = vi.spyOn(process, 'getBuiltinModule').mockReturnValue(undefined as never);
    const verify = vi.spyOn(crypto.subtle, 'verify');
    try {
      expect(await verifyRsaSha256(der, content, signature)).toBe(true);
      expect(await verifyRsaSha256(der, `${content} `, signature)).toBe(false);
      expect(verify).toHaveBeenCalledTimes(2);
      await expect(verifyRsaSha256(ecDer, content, signature)).rejects.toThrow();
    } finally {
      edge.mockRestore();
      verify.mockRestore();
    }
  });
});

describe('sha256Hex', () => {
  it('matches Node', async () => {
    const { createHash } = await import('node:crypto');
    const { sha256Hex } = await import('../src/adapter-toolkit.js');
    expect(await sha256Hex('payload')).toBe(createHash('sha256').update('payload').digest('hex'));
  });
});
