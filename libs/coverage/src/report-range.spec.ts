import { describe, expect, it } from '@jest/globals';
import { CoverageErrorCode } from './coverage.exception.js';
import { isCalendarDate, isTimeZone, resolveDateRange, resolveOpenRange, todayIn } from './report-range.js';

const NOW = new Date('2026-03-10T20:30:00Z'); // 2026-03-11 04:30 in Shanghai

describe('isCalendarDate', () => {
  it.each([
    ['2026-03-01', true],
    ['2024-02-29', true],
    ['2026-02-29', false],
    ['2026-02-30', false],
    ['2026-13-01', false],
    ['2026-3-1', false],
    ['2026-03-01T00:00:00Z', false],
    ['yesterday', false],
    ['', false],
  ])('%p → %p', (value, expected) => expect(isCalendarDate(value)).toBe(expected));
});

describe('isTimeZone', () => {
  it.each([
    ['UTC', true],
    ['Asia/Shanghai', true],
    ['America/Argentina/Buenos_Aires', true],
    ['Etc/GMT+8', true],
    ['Mars/Base', false],
    ['+08:00', false],
    ["UTC'; drop table x;--", false],
    ['', false],
  ])('%p → %p', (value, expected) => expect(isTimeZone(value)).toBe(expected));
});

describe('resolveDateRange', () => {
  it('defaults to the last 30 days ending today in the time zone', () => {
    expect(resolveDateRange({ timeZone: 'UTC' }, NOW)).toEqual({ from: '2026-02-09', to: '2026-03-10', timeZone: 'UTC', days: 30 });
    expect(todayIn('Asia/Shanghai', NOW)).toBe('2026-03-11');
    expect(resolveDateRange({ timeZone: 'Asia/Shanghai' }, NOW).to).toBe('2026-03-11');
  });

  it.each([
    [{ from: '2026-03-01', to: '2026-03-01' }, { from: '2026-03-01', to: '2026-03-01', days: 1 }],
    [{ from: '2026-03-01' }, { from: '2026-03-01', to: '2026-03-10', days: 10 }],
    [{ to: '2026-01-31' }, { from: '2026-01-02', to: '2026-01-31', days: 30 }],
    [{ from: '2025-03-11', to: '2026-03-11' }, { from: '2025-03-11', to: '2026-03-11', days: 366 }],
  ])('%j → %j', (given, expected) => {
    expect(resolveDateRange({ ...given, timeZone: 'UTC' }, NOW)).toMatchObject(expected);
  });

  it.each([
    [{ from: '2026-03-02', to: '2026-03-01' }, /after/],
    [{ from: '2025-03-10', to: '2026-03-11' }, /longer than 366/],
    [{ from: '2026-02-30' }, /from must be a calendar date/],
    [{ to: 'tomorrow' }, /to must be a calendar date/],
  ])('%j → INVALID_RANGE (400)', (given, message) => {
    expect(() => resolveDateRange({ ...given, timeZone: 'UTC' }, NOW)).toThrow(message);
    try {
      resolveDateRange({ ...given, timeZone: 'UTC' }, NOW);
    } catch (e) {
      expect(e).toMatchObject({ code: CoverageErrorCode.InvalidReportRange, status: 400 });
    }
  });

  it('rejects an unknown time zone', () => {
    expect(() => resolveDateRange({ timeZone: 'Mars/Base' }, NOW)).toThrow(/time zone/);
  });
});

describe('resolveOpenRange', () => {
  it.each([
    [{}, { from: null, to: null }],
    [{ from: '2020-01-01' }, { from: '2020-01-01', to: null }],
    [{ to: '2026-01-01' }, { from: null, to: '2026-01-01' }],
    [{ from: '2020-01-01', to: '2026-01-01' }, { from: '2020-01-01', to: '2026-01-01' }],
  ])('%j → %j (no length cap)', (given, expected) => expect(resolveOpenRange(given)).toEqual(expected));

  it.each([[{ from: '2026-01-02', to: '2026-01-01' }], [{ from: '2026-02-30' }]])('%j → 400', (given) => {
    expect(() => resolveOpenRange(given)).toThrow(expect.objectContaining({ status: 400 }) as unknown as Error);
  });
});
