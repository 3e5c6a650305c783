import { describe, expect, it } from '@jest/globals';
import { runFailed, runSucceeded, type RunState } from './session.types.js';

/** The run's outcome stays apart from the feedback state: BAD_CASE of a FAILED run is still a failed run. */
describe('runFailed / runSucceeded', () => {
  const rows: [RunState, boolean, boolean][] = [
    [{ status: 'SUCCESS', outcome: 'SUCCESS' }, false, true],
    [{ status: 'FAILED', outcome: 'FAILED' }, true, false],
    [{ status: 'BAD_CASE', outcome: 'SUCCESS' }, false, true],
    [{ status: 'BAD_CASE', outcome: 'FAILED' }, true, false],
    // rows written before the outcome column existed (or directly by tools) read by their status
    [{ status: 'SUCCESS', outcome: null }, false, true],
    [{ status: 'BAD_CASE', outcome: null }, false, true],
    [{ status: 'FAILED', outcome: null }, true, false],
    [{ status: 'RUNNING', outcome: null }, false, false],
    [{ status: 'PENDING', outcome: null }, false, false],
  ];
  it.each(rows)('%j → failed %p, succeeded %p', (state, failed, succeeded) => {
    expect(runFailed(state)).toBe(failed);
    expect(runSucceeded(state)).toBe(succeeded);
  });
});
