import { describe, expect, it } from '@jest/globals';
import type { Serialized } from './serialized.js';

interface Row {
  id: string;
  createdAt: Date;
  finishedAt: Date | null;
  tags: readonly string[];
  nested: { at: Date; count: number }[];
  status: 'queued' | 'done';
}

// Compile-time checks: each line fails `tsc` if Serialized maps a member wrongly.
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const checks: [
  Equal<Serialized<Row>['createdAt'], string>,
  Equal<Serialized<Row>['finishedAt'], string | null>,
  Equal<Serialized<Row>['tags'], string[]>,
  Equal<Serialized<Row>['nested'], { at: string; count: number }[]>,
  Equal<Serialized<Row>['status'], 'queued' | 'done'>,
  Equal<Serialized<Row>['id'], string>,
] = [true, true, true, true, true, true];

describe('Serialized<T>: the JSON shape of a service value', () => {
  it('matches what JSON.stringify sends for dates, arrays and nested objects', () => {
    expect(checks.every(Boolean)).toBe(true);
    const row: Row = { id: 'a', createdAt: new Date(0), finishedAt: null, tags: ['x'], nested: [{ at: new Date(0), count: 1 }], status: 'done' };
    const wire = JSON.parse(JSON.stringify(row)) as Serialized<Row>;
    expect(wire).toEqual({
      id: 'a',
      createdAt: '1970-01-01T00:00:00.000Z',
      finishedAt: null,
      tags: ['x'],
      nested: [{ at: '1970-01-01T00:00:00.000Z', count: 1 }],
      status: 'done',
    });
  });
});
