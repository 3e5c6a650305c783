import { describe, expect, it } from '@jest/globals';
import { cohensKappa, type AgreementTable } from './agreement.js';

const t = (goodUseful: number, goodNotUseful: number, badUseful: number, badNotUseful: number): AgreementTable => ({
  goodUseful,
  goodNotUseful,
  badUseful,
  badNotUseful,
});

describe('cohensKappa', () => {
  // Known values: Wikipedia "Cohen's kappa" examples (a=20,b=5,c=10,d=15 → κ=0.4; a=45,b=15,c=25,d=15 → κ≈0.1304;
  // a=25,b=35,c=5,d=35 → κ≈0.2593), and the degenerate cases.
  it.each([
    { name: 'Wikipedia example 1', table: t(20, 5, 10, 15), n: 50, po: 0.7, pe: 0.5, kappa: 0.4 },
    { name: 'Wikipedia example 2 (same po, lower κ)', table: t(45, 15, 25, 15), n: 100, po: 0.6, pe: 0.54, kappa: 0.130435 },
    { name: 'Wikipedia example 3', table: t(25, 35, 5, 35), n: 100, po: 0.6, pe: 0.46, kappa: 0.259259 },
    { name: 'perfect agreement', table: t(7, 0, 0, 3), n: 10, po: 1, pe: 0.58, kappa: 1 },
    { name: 'perfect disagreement, balanced', table: t(0, 5, 5, 0), n: 10, po: 0, pe: 0.5, kappa: -1 },
    { name: 'predictor constant, feedback varies: κ = 0', table: t(6, 4, 0, 0), n: 10, po: 0.6, pe: 0.6, kappa: 0 },
    { name: 'both constant and equal: pe = 1 → null', table: t(9, 0, 0, 0), n: 9, po: 1, pe: 1, kappa: null },
    { name: 'both constant, opposite: pe = 0', table: t(0, 4, 0, 0), n: 4, po: 0, pe: 0, kappa: 0 },
  ])('$name', ({ table, n, po, pe, kappa }) => {
    const r = cohensKappa(table);
    expect(r.n).toBe(n);
    expect(r.observedAgreement).toBeCloseTo(po, 6);
    expect(r.expectedAgreement).toBeCloseTo(pe, 6);
    if (kappa === null) expect(r.kappa).toBeNull();
    else expect(r.kappa).toBeCloseTo(kappa, 5);
    expect(r.table).toEqual(table);
  });

  it('n = 0 → everything null', () => {
    expect(cohensKappa(t(0, 0, 0, 0))).toEqual({ table: t(0, 0, 0, 0), n: 0, observedAgreement: null, expectedAgreement: null, kappa: null });
  });

  it('is symmetric in the raters (transposed table)', () => {
    expect(cohensKappa(t(20, 10, 5, 15)).kappa).toBe(cohensKappa(t(20, 5, 10, 15)).kappa);
  });

  it('rejects negative or fractional cells', () => {
    expect(() => cohensKappa(t(-1, 0, 0, 0))).toThrow(RangeError);
    expect(() => cohensKappa(t(0.5, 0, 0, 0))).toThrow(/goodUseful/);
  });
});
