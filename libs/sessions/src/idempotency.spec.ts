import { describe, expect, it } from '@jest/globals';
import { canonicalJson, parseIdempotencyKey, requestHash } from './idempotency.js';

describe('idempotency helpers', () => {
  it('hashes the same body the same whatever its key order, and another body differently', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: undefined } })).toBe('{"a":{"d":[1,{"y":2,"z":1}]},"b":1}');
    expect(requestHash({ query: 'q', status: 'SUCCESS' })).toBe(requestHash({ status: 'SUCCESS', query: 'q' }));
    expect(requestHash({ query: 'q', status: 'SUCCESS' })).not.toBe(requestHash({ query: 'q2', status: 'SUCCESS' }));
  });

  it.each([
    [undefined, undefined],
    ['   ', undefined],
    [' order-42 ', 'order-42'],
    [['k1', 'k2'], 'k1'],
    ['x'.repeat(201), null],
    ['has space', null],
    ['键', null],
  ])('parseIdempotencyKey(%j) → %j', (raw, expected) => {
    expect(parseIdempotencyKey(raw)).toBe(expected);
  });
});
