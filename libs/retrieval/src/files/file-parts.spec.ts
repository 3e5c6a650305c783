import { describe, expect, it } from '@jest/globals';
import { FILE_PART_BYTES, PartAssembler, splitIntoParts } from './file-parts.js';

describe('splitIntoParts', () => {
  it('cuts at every partBytes, the last part shorter, as views into the bytes (no copy)', () => {
    const bytes = Uint8Array.from({ length: 10 }, (_, i) => i);
    const parts = splitIntoParts(bytes, 4);
    expect(parts.map((p) => [...p])).toEqual([
      [0, 1, 2, 3],
      [4, 5, 6, 7],
      [8, 9],
    ]);
    expect(parts.every((p) => p.buffer === bytes.buffer)).toBe(true);
  });

  it('an exact multiple has no empty tail; an empty file has no parts', () => {
    expect(splitIntoParts(new Uint8Array(8), 4).map((p) => p.length)).toEqual([4, 4]);
    expect(splitIntoParts(new Uint8Array(0), 4)).toEqual([]);
  });

  it('parts are 1 MiB by default', () => {
    expect(splitIntoParts(new Uint8Array(FILE_PART_BYTES + 1)).map((p) => p.length)).toEqual([FILE_PART_BYTES, 1]);
  });

  it('refuses a part size that is not a positive integer', () => {
    expect(() => splitIntoParts(new Uint8Array(3), 0)).toThrow(RangeError);
    expect(() => splitIntoParts(new Uint8Array(3), 1.5)).toThrow(RangeError);
  });
});

describe('PartAssembler', () => {
  it('joins the parts in order into an array with an ArrayBuffer of its own', () => {
    const source = Uint8Array.from({ length: 10 }, (_, i) => 100 + i);
    const assembled = new PartAssembler(10);
    for (const part of splitIntoParts(source, 3)) assembled.add(part);
    const out = assembled.finish();
    expect([...out]).toEqual([...source]);
    expect(out.buffer).not.toBe(source.buffer);
    expect(out.buffer.byteLength).toBe(10);
  });

  it('throws when parts are missing or overflow the recorded size', () => {
    const short = new PartAssembler(5);
    short.add(new Uint8Array(3));
    expect(() => short.finish()).toThrow('file parts hold 3 of the recorded 5 bytes');
    const long = new PartAssembler(2);
    expect(() => long.add(new Uint8Array(3))).toThrow('file parts exceed the recorded size of 2 bytes');
  });

  it('an empty file finishes empty', () => {
    expect(new PartAssembler(0).finish()).toHaveLength(0);
  });
});
