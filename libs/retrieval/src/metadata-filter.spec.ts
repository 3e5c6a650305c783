import { describe, expect, it } from '@jest/globals';
import { checkMetadataFilter, containmentGroups, MAX_FILTER_KEYS, type MetadataFilter } from './metadata-filter.js';

describe('checkMetadataFilter (docs/retrieval.md "Metadata filters")', () => {
  const many = Object.fromEntries(Array.from({ length: MAX_FILTER_KEYS + 1 }, (_, i) => [`k${i}`, 'v']));
  const exactlyMax = Object.fromEntries(Array.from({ length: MAX_FILTER_KEYS }, (_, i) => [`k${i}`, i]));
  it.each([
    { name: 'absent: the empty filter', value: undefined, filter: {} },
    { name: 'empty object', value: {}, filter: {} },
    { name: 'string, number, boolean', value: { model: 'RX-200', year: 2024, eol: false }, filter: { model: 'RX-200', year: 2024, eol: false } },
    { name: 'array of values (repeats dropped)', value: { model: ['A', 'B', 'A'] }, filter: { model: ['A', 'B'] } },
    { name: 'mixed array', value: { v: [1, '1', true] }, filter: { v: [1, '1', true] } },
    { name: 'dotted and dashed keys are literal keys', value: { 'doc.lang': 'en', 'x-y_z': 1 }, filter: { 'doc.lang': 'en', 'x-y_z': 1 } },
    { name: `${MAX_FILTER_KEYS} keys`, value: exactlyMax, filter: exactlyMax },
  ])('accepts $name', ({ value, filter }) => {
    expect(checkMetadataFilter(value)).toEqual({ ok: true, filter });
  });

  it.each([
    { name: 'not an object (string)', value: 'model=A', fields: ['filter'] },
    { name: 'not an object (array)', value: [{ model: 'A' }], fields: ['filter'] },
    { name: 'null', value: null, fields: ['filter'] },
    { name: 'nested object value', value: { model: { eq: 'A' } }, fields: ['filter.model'] },
    { name: 'null value', value: { model: null }, fields: ['filter.model'] },
    { name: 'empty array', value: { model: [] }, fields: ['filter.model'] },
    { name: 'array holding an object', value: { model: ['A', { b: 1 }] }, fields: ['filter.model'] },
    { name: 'nested array', value: { model: [['A']] }, fields: ['filter.model'] },
    { name: 'key with a space', value: { 'product model': 'A' }, fields: ['filter.product model'] },
    { name: 'key too long', value: { ['k'.repeat(65)]: 'A' }, fields: [`filter.${'k'.repeat(65)}`] },
    { name: 'empty key', value: { '': 'A' }, fields: ['filter.'] },
    { name: 'non-finite number', value: { year: Number.POSITIVE_INFINITY }, fields: ['filter.year'] },
    { name: 'string too long', value: { model: 'x'.repeat(501) }, fields: ['filter.model'] },
    { name: 'more than 20 keys', value: many, fields: ['filter'] },
    { name: 'two bad keys, one good: both named', value: { ok: 'A', bad: {}, worse: [] }, fields: ['filter.bad', 'filter.worse'] },
  ])('refuses $name, naming $fields', ({ value, fields }) => {
    const checked = checkMetadataFilter(value);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.problems.map((p) => p.field)).toEqual(fields);
  });

  it('names fields under the prefix it is given (the settings endpoint)', () => {
    const checked = checkMetadataFilter({ model: {} }, 'defaultFilter');
    expect(checked.ok ? [] : checked.problems.map((p) => p.field)).toEqual(['defaultFilter.model']);
  });
});

describe('the filter in SQL', () => {
  it.each([
    { name: 'one value: the value or an array holding it', filter: { model: 'A' }, groups: [['{"model":"A"}', '{"model":["A"]}']] },
    {
      name: 'any of several values',
      filter: { model: ['A', 'B'] },
      groups: [['{"model":"A"}', '{"model":["A"]}', '{"model":"B"}', '{"model":["B"]}']],
    },
    {
      name: 'several keys, sorted: all required',
      filter: { lang: 'en', model: 1, active: true },
      groups: [
        ['{"active":true}', '{"active":[true]}'],
        ['{"lang":"en"}', '{"lang":["en"]}'],
        ['{"model":1}', '{"model":[1]}'],
      ],
    },
  ] as { name: string; filter: MetadataFilter; groups: string[][] }[])('$name', ({ filter, groups }) => {
    expect(containmentGroups(filter)).toEqual(groups);
  });
});
