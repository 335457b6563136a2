import { describe, expect, it } from 'vitest';
import { requestIdOf } from '../src/adapter-toolkit.js';

describe('request_id of a record', () => {
  const reply = (headers: Record<string, string>) => ({
    headers: new Headers(headers),
    requestId: 'sent-7f3a',
  });

  it("quotes the provider's own request id when its reply carries one", () => {
    expect(requestIdOf(reply({ 'X-Request-Id': ' prov-991 ' }), 'x-request-id')).toBe('prov-991');
  });

  it('falls back to the id @pay sent when the provider answered none (or an empty one)', () => {
    expect(requestIdOf(reply({}), 'x-request-id')).toBe('sent-7f3a');
    expect(requestIdOf(reply({ 'x-request-id': '  ' }), 'x-request-id')).toBe('sent-7f3a');
    expect(requestIdOf(reply({ 'x-request-id': 'prov-991' }))).toBe('sent-7f3a');
  });
});
