import { describe, expect, it } from '@jest/globals';
import { assertJobTotal, isRunHandedOver, JobLeaseLostError, JobStoppedError, MAX_JOB_TOTAL, resumedTotal } from './job.types.js';

describe('assertJobTotal', () => {
  it.each([0, 1, 1234, MAX_JOB_TOTAL])('accepts %p', (total) => {
    expect(assertJobTotal(total)).toBe(total);
  });

  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, MAX_JOB_TOTAL + 1])('refuses %p (a handler bug fails the attempt)', (total) => {
    expect(() => assertJobTotal(total)).toThrow(RangeError);
  });
});

describe('resumedTotal', () => {
  it.each([
    [0, 0, 0],
    [0, 10, 10],
    [4, 6, 10],
    [MAX_JOB_TOTAL, 5, MAX_JOB_TOTAL],
  ])('processed %p + remaining %p → %p', (processed, remaining, total) => {
    expect(resumedTotal(processed, remaining)).toBe(total);
  });
});

describe('isRunHandedOver', () => {
  it.each([
    ['stopped at a checkpoint', new JobStoppedError('r'), true],
    ['lease lost', new JobLeaseLostError('r'), true],
    ['a real failure', new Error('boom'), false],
    ['not an error', 'boom', false],
  ] as const)('%s → %s', (_name, error, expected) => {
    expect(isRunHandedOver(error)).toBe(expected);
  });
});
