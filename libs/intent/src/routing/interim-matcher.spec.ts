import { describe, expect, it } from '@jest/globals';
import { blendWithInterim, examplesFingerprint, INTERIM_REFERENCE_INTENTS, INTERIM_TEMPERATURE, interimProbabilities } from './interim-matcher.js';

const f32 = (xs: number[]): Float32Array => Float32Array.from(xs);
const sum = (xs: Float32Array): number => xs.reduce((a, b) => a + b, 0);

describe('interimProbabilities', () => {
  it.each([
    // similarities, temperature, reference intents, expected probabilities
    { sims: [0.5, 0.5], t: 0.1, ref: 0, expected: [0.5, 0.5] },
    { sims: [0.3, 0], t: 0.1, ref: 0, expected: [Math.exp(3) / (Math.exp(3) + 1), 0] },
    { sims: [0.3, 0.1, 0], t: 0.1, ref: 0, expected: [Math.exp(3), Math.exp(1), 0].map((e) => e / (Math.exp(3) + Math.exp(1) + 1)) },
    // two reference intents more than the tenant has: two more exp(0) in the denominator
    { sims: [0.3, 0.1], t: 0.1, ref: 4, expected: [Math.exp(3), Math.exp(1)].map((e) => e / (Math.exp(3) + Math.exp(1) + 2)) },
    { sims: [0, 0, 0], t: 0.1, ref: 150, expected: [0, 0, 0] },
  ])('$sims at T=$t, reference $ref → $expected', ({ sims, t, ref, expected }) => {
    const p = interimProbabilities(f32(sims), { temperature: t, referenceIntents: ref });
    expect(Array.from(p).map((x) => Number(x.toFixed(6)))).toEqual(expected.map((x) => Number(x.toFixed(6))));
  });

  it('is certain of a clear nearest intent and unsure of a weak one, whatever the tenant size (default options)', () => {
    expect(interimProbabilities(f32([0.6, 0.1]))[0]).toBeGreaterThan(0.9);
    expect(interimProbabilities(f32([0.05, 0]))[0]).toBeLessThan(0.3);
    // the same weak similarity in a 2-intent and a 150-intent tenant gets the same probability
    const big = new Float32Array(150);
    big[0] = 0.05;
    expect(interimProbabilities(f32([0.05, 0]))[0]).toBeCloseTo(interimProbabilities(big)[0], 6);
    expect(INTERIM_TEMPERATURE).toBeGreaterThan(0);
    expect(INTERIM_REFERENCE_INTENTS).toBeGreaterThanOrEqual(1);
  });

  it('does not overflow on similarities far above the temperature', () => {
    const p = interimProbabilities(f32([1, 0.99]), { temperature: 0.001, referenceIntents: 0 });
    expect(Number.isFinite(p[0])).toBe(true);
    expect(sum(p)).toBeCloseTo(1, 6);
  });

  it('refuses a temperature that is not positive', () => {
    expect(() => interimProbabilities(f32([0.5]), { temperature: 0, referenceIntents: 0 })).toThrow('positive');
  });
});

describe('blendWithInterim', () => {
  it.each([
    // nothing changed: the classifier's scores as they are
    { clf: [0.7, 0.2, 0.1], interim: [0.9, 0.05, 0.05], changed: [0, 0, 0], expected: [0.7, 0.2, 0.1] },
    // a new intent (index 2; the classifier gives it 0): it takes its interim probability, the others share the rest
    { clf: [0.7, 0.3, 0], interim: [0.1, 0.1, 0.8], changed: [0, 0, 1], expected: [0.7 * 0.2, 0.3 * 0.2, 0.8] },
    // the message looks like nothing changed: the unchanged intents keep their scores
    { clf: [0.7, 0.3, 0], interim: [0.6, 0.4, 0], changed: [0, 0, 1], expected: [0.7, 0.3, 0] },
    // two changed intents
    { clf: [0.5, 0.5, 0, 0], interim: [0.1, 0.1, 0.5, 0.3], changed: [0, 1, 1, 0], expected: [0.5 * 0.4, 0.1, 0.5, 0] },
  ])('classifier $clf, interim $interim, changed $changed → $expected', ({ clf, interim, changed, expected }) => {
    const out = blendWithInterim(f32(clf), f32(interim), Uint8Array.from(changed));
    expect(Array.from(out).map((x) => Number(x.toFixed(6)))).toEqual(expected.map((x) => Number(Math.fround(x).toFixed(6))));
  });

  it('keeps the order of the unchanged intents', () => {
    const out = blendWithInterim(f32([0.3, 0.6, 0.1, 0]), f32([0.2, 0.1, 0.1, 0.6]), Uint8Array.from([0, 0, 0, 1]));
    expect(out[1]).toBeGreaterThan(out[0]);
    expect(out[0]).toBeGreaterThan(out[2]);
  });

  it('refuses arrays of different lengths', () => {
    expect(() => blendWithInterim(f32([1]), f32([1, 0]), Uint8Array.from([0]))).toThrow('same intents');
  });
});

describe('examplesFingerprint', () => {
  it.each([
    { a: ['hello', 'world'], b: ['hello', 'world'], same: true },
    { a: ['hello', 'world'], b: ['world', 'hello'], same: false },
    { a: ['ab'], b: ['a', 'b'], same: false },
    { a: ['hello'], b: ['hello!'], same: false },
    { a: [], b: [''], same: false },
  ])('$a vs $b → same: $same', ({ a, b, same }) => {
    expect(examplesFingerprint(a) === examplesFingerprint(b)).toBe(same);
  });
});
