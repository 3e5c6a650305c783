import { describe, expect, it } from '@jest/globals';
import { formatBytes, formatCount, formatDateTime, formatDuration, formatPercent, formatScore, isoDay, lastDays, truncate } from './format';
import { toCsv } from './csv';
import { initialLanguage, interpolate } from '../i18n/language';

describe('formatters', () => {
  it.each([
    [0.853, '85.3%'],
    [0, '0.0%'],
    [1, '100.0%'],
    [null, '—'],
    [Number.NaN, '—'],
  ])('formatPercent(%p) = %p', (rate, text) => expect(formatPercent(rate)).toBe(text));

  it.each([
    [12345, 'en', '12,345'],
    [12345, 'zh', '12,345'],
    [null, 'en', '—'],
  ] as const)('formatCount(%p, %p) = %p', (value, language, text) => expect(formatCount(value, language)).toBe(text));

  it.each([
    [850, '850 ms'],
    [1234, '1.2 s'],
    [185_000, '3 min 5 s'],
    [-1, '—'],
    [null, '—'],
  ])('formatDuration(%p) = %p', (ms, text) => expect(formatDuration(ms)).toBe(text));
  it.each([
    [0, '0 B'],
    [1023, '1023 B'],
    [1536, '1.5 KiB'],
    [52_428_800, '50.0 MiB'],
    [-1, '—'],
    [null, '—'],
  ])('formatBytes(%p) = %p', (bytes, text) => expect(formatBytes(bytes)).toBe(text));

  it.each([
    ['2026-11-30T19:05:00Z', 'UTC', '2026-11-30 19:05'],
    ['2026-11-30T19:05:00Z', 'Asia/Shanghai', '2026-12-01 03:05'],
    ['2026-11-30T00:00:00Z', 'UTC', '2026-11-30 00:00'],
    ['not a date', 'UTC', 'not a date'],
    [null, 'UTC', '—'],
  ])('formatDateTime(%p, %p) = %p', (iso, zone, text) => expect(formatDateTime(iso, zone)).toBe(text));

  it('formatScore keeps two decimals', () => expect(formatScore(0.8567)).toBe('0.86'));

  it('truncate does not split a character outside the BMP', () => {
    expect(truncate('示教器😀黑屏', 5)).toBe('示教器😀…');
    expect(truncate('short', 10)).toBe('short');
  });

  it('lastDays counts today in', () => {
    expect(lastDays(7, new Date(2026, 10, 30))).toEqual({ from: '2026-11-24', to: '2026-11-30' });
    expect(isoDay(new Date(2026, 0, 5))).toBe('2026-01-05');
  });
});

describe('toCsv', () => {
  it('quotes what needs quoting and defuses formulas', () => {
    expect(
      toCsv(
        ['q', 'n'],
        [
          ['a,b', 1],
          ['say "hi"', 2],
          ['=SUM(A1)', 3],
          ['多行\n文本', null],
        ],
      ),
    ).toBe('q,n\r\n"a,b",1\r\n"say ""hi""",2\r\n\'=SUM(A1),3\r\n"多行\n文本",\r\n');
  });
});

describe('language', () => {
  it.each([
    ['en', ['zh-CN'], 'en'],
    [null, ['zh-TW', 'en'], 'zh'],
    [null, ['fr', 'en-US'], 'en'],
    [null, ['fr'], 'en'],
    ['xx', ['zh'], 'zh'],
  ] as const)('stored %p, browser %j → %p', (stored, browser, expected) => expect(initialLanguage(stored, browser)).toBe(expected));

  it('interpolate fills known names and leaves unknown ones visible', () => {
    expect(interpolate('{n} of {total} {x}', { n: 1, total: 2 })).toBe('1 of 2 {x}');
  });
});
