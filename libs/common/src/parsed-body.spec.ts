import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { IsInt, IsString } from 'class-validator';
import { bulkBodyItems, validateBulkItems } from './parsed-body.js';

class ItemDto {
  @IsString()
  name!: string;

  @IsInt()
  count!: number;
}

const invalid = (detail?: string) => new Error(detail ?? 'not a bulk body');

describe('bulk body items', () => {
  it.each([
    { name: 'a JSON array', body: [{ a: 1 }, 2], items: [{ a: 1 }, 2] },
    { name: 'an object holding the array under its key', body: { documents: [{ a: 1 }] }, items: [{ a: 1 }] },
    { name: 'NDJSON, blank lines skipped, CRLF too', body: '{"a":1}\r\n\n  \n{"a":2}\n', items: [{ a: 1 }, { a: 2 }] },
    { name: 'empty NDJSON', body: '', items: [] },
  ])('$name', ({ body, items }) => {
    expect(bulkBodyItems(body, 'documents', invalid)).toEqual(items);
  });

  it.each([
    { name: 'an object without the key', body: { items: [] }, message: 'not a bulk body' },
    { name: 'a number', body: 3, message: 'not a bulk body' },
    { name: 'null', body: null, message: 'not a bulk body' },
    { name: 'NDJSON with a broken line (named by its number, blank lines counted)', body: '{"a":1}\n\n{"a":', message: 'line 3 is not valid JSON' },
  ])('refuses $name', ({ body, message }) => {
    expect(() => bulkBodyItems(body, 'documents', invalid)).toThrow(message);
  });
});

describe('validating bulk items one by one', () => {
  it('types the valid items and names the fields of the others, in order', async () => {
    const out = await validateBulkItems(ItemDto, [{ name: 'a', count: 1 }, 'text', { name: 'b', count: 'x' }, { name: 'c', count: 2, extra: true }, [1]]);
    expect(out.map((i) => i.index)).toEqual([0, 1, 2, 3, 4]);
    expect(out[0]).toEqual({ index: 0, raw: { name: 'a', count: 1 }, value: expect.any(ItemDto), errors: null });
    expect(out[0].value).toEqual({ name: 'a', count: 1 });
    expect(out[1]).toEqual({ index: 1, raw: 'text', value: null, errors: [{ field: '', errors: ['item must be an object'] }] });
    expect(out[2].errors).toEqual([{ field: 'count', errors: ['count must be an integer number'] }]);
    expect(out[3].errors).toEqual([{ field: 'extra', errors: ['property extra should not exist'] }]);
    expect(out[4].errors).toEqual([{ field: '', errors: ['item must be an object'] }]);
  });
});
