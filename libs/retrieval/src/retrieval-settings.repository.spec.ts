import { describe, expect, it } from '@jest/globals';
import { settingsRowFromJson, storedSettings } from './retrieval-settings.repository.js';

const ROW = {
  normalization: {},
  fusion: { k: 60 },
  grading: {},
  default_filter: { lang: 'en' },
  memory_ttl_seconds: 600,
  chunk_size: 800,
  chunk_overlap: 80,
};

describe('settingsRowFromJson (the row jsonSubquery carried through a caller statement)', () => {
  it.each([
    ['null: the tenant has no row', null],
    ['undefined: the statement returned no json', undefined],
  ])('%s → null, and the defaults apply', (_name, value) => {
    expect(settingsRowFromJson(value)).toBeNull();
    expect(storedSettings(settingsRowFromJson(value)).memoryTtlSeconds).toBe(storedSettings(null).memoryTtlSeconds);
  });

  it('a row → the same row, read as stored settings', () => {
    expect(settingsRowFromJson(ROW)).toBe(ROW);
    expect(storedSettings(settingsRowFromJson(ROW))).toMatchObject({ memoryTtlSeconds: 600, chunkSize: 800, chunkOverlap: 80, defaultFilter: { lang: 'en' } });
  });

  it.each([
    ['a string', '{"memory_ttl_seconds":600}'],
    ['a number', 42],
    ['an object without the numeric columns', { normalization: {}, fusion: {}, grading: {} }],
    ['a row whose ttl is a string', { ...ROW, memory_ttl_seconds: '600' }],
  ])('%s → TypeError', (_name, value) => {
    expect(() => settingsRowFromJson(value)).toThrow(TypeError);
  });
});
