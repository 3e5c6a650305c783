import { describe, expect, it } from '@jest/globals';
import { sanitizeSummary } from './audit.types.js';

describe('sanitizeSummary', () => {
  it.each([
    ['drops secrets at any depth', { name: 'w', key: 'ak_cli_x', nested: { secret: 's', token: 't', keep: 1 } }, { name: 'w', nested: { keep: 1 } }],
    ['keeps before/after of settings', { before: { perMinute: 1 }, after: { perMinute: 2 } }, { before: { perMinute: 1 }, after: { perMinute: 2 } }],
    ['caps long strings', { label: 'x'.repeat(600) }, { label: `${'x'.repeat(500)}…` }],
    ['caps long arrays', { ids: Array.from({ length: 60 }, (_, i) => i) }, { ids: Array.from({ length: 50 }, (_, i) => i) }],
  ])('%s', (_name, input, expected) => {
    expect(sanitizeSummary(input)).toEqual(expected);
  });
});
