/**
 * Recorded provider fixtures (docs/architecture.md#test-suites) ship in every clone and every package tarball:
 * none may hold something that looks like a live credential. The detector is checked on planted values first, so a
 * scan that finds nothing means the fixtures are clean, not that the detector is blind.
 */
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module of the tooling scripts, without type declarations
import { findCredentials, scanFixtures } from '../../../tooling/scripts/fixture-credentials.mjs';

type Hit = { what: string; value: string };
const find = findCredentials as (text: string, allowed?: ReadonlySet<string>) => Hit[];
const root = new URL('../../..', import.meta.url).pathname;

describe('the fixture credential check', () => {
  it('flags a secret under a credential name, in JSON and in a form body', () => {
    expect(find(JSON.stringify({ merchant: '145227', secret: 'k9Qz2LmW7rTx' }))).toEqual([
      { what: 'a value under "secret"', value: 'k9Qz2LmW7rTx' },
    ]);
    expect(find('merchant=145227&secret=k9Qz2LmW7rTx&transId=ABC-123')).toEqual([
      { what: 'a value under "secret"', value: 'k9Qz2LmW7rTx' },
    ]);
  });

  it('flags tokens and keys by their shape wherever they stand', () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJtZXJjaGFudCJ9.c2lnbmF0dXJlLXZhbHVl';
    expect(find(`{"note": "${jwt}"}`).map((hit) => hit.what)).toContain('a JSON Web Token');
    expect(find('authorization: Bearer 4f9c1e2d8a7b6c5d4e3f2a1b').map((hit) => hit.what)).toContain(
      'a bearer token',
    );
    expect(find(`Authorization: Basic ${btoa('145227:k9Qz2LmW7rTx')}`).map((hit) => hit.what)).toContain(
      'a Basic credential',
    );
    expect(find('{"key": "MK_PROD_8QW2ZK4TLA"}').map((hit) => hit.what)).toContain(
      'a live or production key',
    );
    expect(find('-----BEGIN PRIVATE KEY-----\nMIIE…').map((hit) => hit.what)).toContain('a private key');
  });

  it('lets placeholders, short values and allowed published examples through', () => {
    expect(find(JSON.stringify({ secret: 'test-secret-placeholder', apiKey: 'MK_TEST_SAMPLE1' }))).toEqual(
      [],
    );
    expect(find(JSON.stringify({ token_type: 'bearer', secret: 'abc' }))).toEqual([]);
    expect(find(`Authorization: Basic ${btoa('145227:example-secret')}`)).toEqual([]);
    expect(find(JSON.stringify({ clientSecret: 'Q7PDL2V9XK' }), new Set(['Q7PDL2V9XK']))).toEqual([]);
  });

  it('finds no live-looking credential in any provider fixture', () => {
    const hits = (scanFixtures as (root: string) => (Hit & { file: string })[])(root);
    expect(hits.map((hit) => `${hit.file}: ${hit.what}`)).toEqual([]);
  });
});
