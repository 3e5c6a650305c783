import { describe, expect, it } from '@jest/globals';
import { applyCalibration, calibrationProblem, fitIsotonic, reliability, type CalibrationSample } from './calibration.js';

const s = (confidence: number, correct: boolean): CalibrationSample => ({ confidence, correct });

describe('fitIsotonic', () => {
  it('pools adjacent violators into non-decreasing blocks', () => {
    // 0.1 ✓, 0.2 ✗, 0.3 ✗, 0.4 ✓ → blocks {0.1,0.2,0.3}: 1/3, {0.4}: 1
    const cal = fitIsotonic([s(0.4, true), s(0.1, true), s(0.3, false), s(0.2, false)]);
    expect(cal.x).toEqual([0.2, 0.4]);
    expect(cal.y).toEqual([0.3333, 1]);
    expect(cal.samples).toBe(4);
  });

  it('is the identity-like default with no samples', () => {
    expect(fitIsotonic([])).toMatchObject({ x: [0, 1], y: [0, 1], samples: 0 });
  });
});

describe('applyCalibration', () => {
  const cal = { x: [0.2, 0.6], y: [0.1, 0.9] };
  it.each([
    [0, 0.1],
    [0.2, 0.1],
    [0.4, 0.5],
    [0.6, 0.9],
    [1, 0.9],
  ])('%d → %d (clamped, linear between knots)', (input, output) => {
    expect(applyCalibration(cal, input)).toBeCloseTo(output, 6);
  });
});

describe('reliability', () => {
  it('bins samples and computes ECE', () => {
    // bin 9: two samples at 0.95, one right → |0.5 - 0.95| · 2/4; bin 1: two at 0.15, both wrong → |0 - 0.15| · 2/4
    const r = reliability([s(0.95, true), s(0.95, false), s(0.15, false), s(0.15, false)]);
    expect(r.ece).toBeCloseTo(0.225 + 0.075, 4);
    expect(r.bins[9]).toMatchObject({ count: 2, meanConfidence: 0.95, accuracy: 0.5 });
    expect(r.bins[0]).toMatchObject({ count: 0, meanConfidence: null, accuracy: null });
    expect(r.bins).toHaveLength(10);
  });

  it('puts a confidence of exactly 1 into the last bin', () => {
    expect(reliability([s(1, true)]).bins[9].count).toBe(1);
  });
});

describe('calibrationProblem', () => {
  it.each([
    [{ method: 'isotonic', x: [0.1, 0.5], y: [0.2, 0.8] }, null],
    [{ method: 'platt', x: [0.1], y: [0.2] }, 'method must be "isotonic"'],
    [{ method: 'isotonic', x: [0.1, 0.5], y: [0.2] }, 'same length'],
    [{ method: 'isotonic', x: [0.5, 0.1], y: [0.2, 0.8] }, 'must ascend strictly'],
    [{ method: 'isotonic', x: [0.1, 0.5], y: [0.8, 0.2] }, 'must not descend'],
    [{ method: 'isotonic', x: [0.1, 1.5], y: [0.2, 0.8] }, 'calibration.x[1]'],
    [[1, 2], 'must be an object'],
  ])('%j → %s', (value, problem) => {
    const got = calibrationProblem(value);
    if (problem === null) expect(got).toBeNull();
    else expect(got).toContain(problem);
  });
});
