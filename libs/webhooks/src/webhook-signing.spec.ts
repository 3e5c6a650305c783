import { createHmac } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { PREVIOUS_SIGNATURE_HEADER, SIGNATURE_HEADER, signatureHeaders, signWebhook, TIMESTAMP_HEADER, verifyWebhook } from './webhook-signing.js';

describe('webhook signing', () => {
  it('is sha256=<hex HMAC-SHA256(secret as UTF-8, "<timestamp>.<body>")>', () => {
    // Fixed vectors computed outside the code: printf '<timestamp>.<body>' | openssl dgst -sha256 -hmac '<secret>'.
    expect(signWebhook('whsec_test', 1700000000, '{"a":1}')).toBe('sha256=38877139021993b830af32feea6e18a8da83eb2f6e49ee50bd9e4cf4ca4d3789');
    expect(signWebhook('key', 0, 'The quick brown fox jumps over the lazy dog')).toBe(
      'sha256=8511f28f7a1949f0c42772b447d68b2daf760f5f0439a20a17e3b4e7cd395763',
    );
  });

  it('keys the HMAC with the secret as UTF-8 (a non-ASCII secret and body)', () => {
    const expected = createHmac('sha256', Buffer.from('密钥', 'utf8')).update(Buffer.from('12.{"q":"还是不行"}', 'utf8')).digest('hex');
    expect(signWebhook('密钥', 12, '{"q":"还是不行"}')).toBe(`sha256=${expected}`);
  });

  it('changes with the timestamp, the body and the secret', () => {
    const base = signWebhook('s', 1, 'b');
    expect(signWebhook('s', 2, 'b')).not.toBe(base);
    expect(signWebhook('s', 1, 'c')).not.toBe(base);
    expect(signWebhook('t', 1, 'b')).not.toBe(base);
  });

  it('sends the previous secret only in its own header, the current one always in X-Arbiter-Signature', () => {
    expect(signatureHeaders({ current: 'new', previous: null }, 5, 'x')).toEqual({ [TIMESTAMP_HEADER]: '5', [SIGNATURE_HEADER]: signWebhook('new', 5, 'x') });
    expect(signatureHeaders({ current: 'new', previous: 'old' }, 5, 'x')).toEqual({
      [TIMESTAMP_HEADER]: '5',
      [SIGNATURE_HEADER]: signWebhook('new', 5, 'x'),
      [PREVIOUS_SIGNATURE_HEADER]: signWebhook('old', 5, 'x'),
    });
  });

  it.each([
    ['a valid signature', 's', '100', 'b', 100, true],
    ['a wrong secret', 'other', '100', 'b', 100, false],
    ['a tampered body', 's', '100', 'B', 100, false],
    ['a timestamp too old', 's', '100', 'b', 401, false],
    ['a timestamp in the tolerance', 's', '100', 'b', 400, true],
    ['a non-numeric timestamp', 's', 'abc', 'b', 100, false],
  ])('verifies %s', (_name, secret, timestamp, body, now, ok) => {
    const signature = signWebhook('s', Number(timestamp) || 100, 'b');
    expect(verifyWebhook(secret, { timestamp, signature }, body, now)).toBe(ok);
  });

  it('refuses a missing header', () => {
    expect(verifyWebhook('s', { timestamp: '1', signature: undefined }, 'b', 1)).toBe(false);
    expect(verifyWebhook('s', { timestamp: undefined, signature: signWebhook('s', 1, 'b') }, 'b', 1)).toBe(false);
  });
});
