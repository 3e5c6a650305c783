import { describe, expect, it } from '@jest/globals';
import { boundParams, isCalendarDay, parseTimeBound } from './time-bound.js';

describe('parseTimeBound', () => {
  it.each([
    ['2026-03-01', { kind: 'date', date: '2026-03-01' }],
    ['2024-02-29', { kind: 'date', date: '2024-02-29' }],
    ['2026-03-01T08:00:00Z', { kind: 'instant', instant: '2026-03-01T08:00:00Z' }],
    ['2026-03-01T08:00Z', { kind: 'instant', instant: '2026-03-01T08:00Z' }],
    ['2026-03-01T08:00:00.123456+08:00', { kind: 'instant', instant: '2026-03-01T08:00:00.123456+08:00' }],
    ['2026-03-01T23:59:59-05:30', { kind: 'instant', instant: '2026-03-01T23:59:59-05:30' }],
  ])('accepts %s', (raw, expected) => {
    expect(parseTimeBound(raw)).toEqual(expected);
  });

  it.each([
    'yesterday',
    '',
    '2026-02-30',
    '2025-02-29',
    '2026-13-01',
    '2026-3-1',
    '1969-12-31',
    '2026-03-01T08:00:00', // no zone: ambiguous
    '2026-03-01T24:00:00Z',
    '2026-03-01T08:60:00Z',
    '2026-03-01T08:00:61Z',
    '2026-02-30T08:00:00Z',
    '2026-03-01T08:00:00+15:00',
    '2026-03-01 08:00:00Z',
    '2026-03-01T08:00:00.1234567Z',
    '1772352000000',
  ])('rejects %s', (raw) => {
    expect(parseTimeBound(raw)).toBeNull();
  });

  it('rejects non-strings', () => {
    expect(parseTimeBound(20260301)).toBeNull();
    expect(parseTimeBound(['2026-03-01'])).toBeNull();
    expect(parseTimeBound(undefined)).toBeNull();
  });

  it('isCalendarDay knows leap years', () => {
    expect(isCalendarDay('2000-02-29')).toBe(true);
    expect(isCalendarDay('1900-02-29')).toBe(false);
  });

  it('boundParams splits instants and days', () => {
    expect(boundParams(null)).toEqual([null, null]);
    expect(boundParams({ kind: 'date', date: '2026-03-01' })).toEqual([null, '2026-03-01']);
    expect(boundParams({ kind: 'instant', instant: '2026-03-01T00:00:00Z' })).toEqual(['2026-03-01T00:00:00Z', null]);
  });
});
