import { describe, expect, it } from '@jest/globals';
import { DEFAULT_RETRIEVAL_NORMALIZATION } from '../relevance.js';
import {
  type Calibration,
  FEATURE_NAMES,
  features,
  FIRST_FEATURE_COUNT,
  gradeCalibrated,
  logitOfRight,
  probabilityOfRight,
  type RelevanceEvidence,
  storedCalibration,
  toSeedScale,
} from './calibration.js';
import { cutForRightShare, cutForWrongShare, evaluateGrading, fitCalibration, fitLogistic, rerank } from './calibration-fit.js';
import { DEFAULT_CALIBRATION } from './default-calibration.js';

const T = DEFAULT_RETRIEVAL_NORMALIZATION; // reference 0.5, highly relevant 0.75
const cuts = { reference: 0.4, highlyRelevant: 0.6 };

const evidence = (over: Partial<RelevanceEvidence> = {}): RelevanceEvidence => ({
  lexicalShare: 0,
  similarity: 0,
  lexicalRank: null,
  vectorRank: null,
  exactHit: false,
  runnerUpLexicalShare: 0,
  coverage: 0,
  runnerUpSimilarity: 0,
  unknownShare: 0,
  missesRarestTerm: false,
  ...over,
});

describe('calibrated relevance → the seed scale', () => {
  // The cuts land on the thresholds: p = cuts.reference ↦ 0.5, p = cuts.highlyRelevant ↦ 0.75, linear between.
  it.each([
    { p: 0, r: 0 },
    { p: 0.2, r: 0.25 },
    { p: 0.4, r: 0.5 },
    { p: 0.5, r: 0.625 },
    { p: 0.6, r: 0.75 },
    { p: 0.8, r: 0.875 },
    { p: 1, r: 1 },
    { p: Number.NaN, r: 0 },
    { p: 1.5, r: 1 },
  ])('p = $p ↦ relevance $r', ({ p, r }) => {
    expect(toSeedScale(p, cuts, T)).toBeCloseTo(r, 10);
  });

  it('follows the tenant thresholds', () => {
    expect(toSeedScale(0.4, cuts, { referenceThreshold: 0.3, highlyRelevantThreshold: 0.9 })).toBeCloseTo(0.3, 10);
    expect(toSeedScale(0.6, cuts, { referenceThreshold: 0.3, highlyRelevantThreshold: 0.9 })).toBeCloseTo(0.9, 10);
  });
});

describe('grade from the top result', () => {
  it.each([
    { top: null, level: 'REFERENCE', hint: 'INSUFFICIENT' },
    { top: { relevance: 0.9, exactHit: true }, level: 'PRECISE', hint: null },
    { top: { relevance: 0.75, exactHit: false }, level: 'HIGHLY_RELEVANT', hint: null },
    // An exact (L0) hit alone no longer makes a result PRECISE: it is evidence in the relevance.
    { top: { relevance: 0.6, exactHit: true }, level: 'REFERENCE', hint: 'PARTIAL' },
    { top: { relevance: 0.5, exactHit: false }, level: 'REFERENCE', hint: 'PARTIAL' },
    { top: { relevance: 0.49, exactHit: true }, level: 'REFERENCE', hint: 'INSUFFICIENT' },
    { top: { relevance: Number.NaN, exactHit: false }, level: 'REFERENCE', hint: 'INSUFFICIENT' },
  ])('$top → $level / $hint', ({ top, level, hint }) => {
    expect(gradeCalibrated(top, T)).toEqual({ relevanceLevel: level, completenessHint: hint });
  });
});

describe('features and the logistic model', () => {
  it('has one weight per feature in the built-in calibration', () => {
    expect(DEFAULT_CALIBRATION.weights).toHaveLength(FEATURE_NAMES.length);
    expect(features(evidence())).toHaveLength(FEATURE_NAMES.length);
  });

  it('more evidence means a higher probability with the built-in calibration', () => {
    const weak = probabilityOfRight(DEFAULT_CALIBRATION, evidence({ lexicalShare: 0.05, similarity: 0.3, coverage: 0.1 }));
    const strong = probabilityOfRight(
      DEFAULT_CALIBRATION,
      evidence({ lexicalShare: 0.6, similarity: 0.7, coverage: 0.9, lexicalRank: 1, vectorRank: 1, runnerUpLexicalShare: 0.1 }),
    );
    expect(strong).toBeGreaterThan(0.8);
    expect(weak).toBeLessThan(0.2);
  });

  it('logistic regression recovers a separable rule', () => {
    const x = Array.from({ length: 200 }, (_, i) => [1, (i % 100) / 100]);
    const y = x.map((r) => (r[1] > 0.5 ? 1 : 0));
    const w = fitLogistic(x, y, 1e-4);
    expect(w[1]).toBeGreaterThan(5);
    expect(-w[0] / w[1]).toBeCloseTo(0.5, 1);
  });

  it.each([
    { wrong: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95], share: 0.1, cut: 0.9 + 1e-9 },
    { wrong: [0.1, 0.2], share: 0, cut: 0.2 + 1e-9 },
    { wrong: [], share: 0.1, cut: 0.5 },
  ])('the highly-relevant cut lets at most $share of wrong tops through', ({ wrong, share, cut }) => {
    expect(cutForWrongShare(wrong, share)).toBeCloseTo(cut, 12);
  });

  it.each([
    { right: [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.05], share: 0.15, cut: 0.1 },
    { right: [0.3, 0.9], share: 0, cut: 0.3 },
    { right: [], share: 0.15, cut: 0.5 },
  ])('the reference cut leaves at most $share of right tops below it', ({ right, share, cut }) => {
    expect(cutForRightShare(right, share)).toBeCloseTo(cut, 12);
  });
});

describe('fitting from labelled lookups', () => {
  // Right candidates have high coverage, wrong ones low; unanswerable lookups only have wrong ones.
  const lookups = Array.from({ length: 120 }, (_, i) => {
    const answerable = i % 4 !== 0;
    const noise = ((i * 37) % 10) / 40;
    return {
      answerable,
      candidates: [
        { evidence: evidence({ coverage: 0.2 + noise, lexicalShare: 0.1 + noise / 2, lexicalRank: 1 }), right: false },
        ...(answerable ? [{ evidence: evidence({ coverage: 0.7 + noise, lexicalShare: 0.4 + noise, vectorRank: 1, similarity: 0.6 }), right: true }] : []),
      ],
    };
  });

  it('re-ranks right documents first and meets its targets in sample', () => {
    const fit = fitCalibration(lookups);
    const m = evaluateGrading(lookups, fit.calibration);
    expect(m.hitAt1).toBe(1);
    expect(m.rightInsufficient).toBeLessThanOrEqual(0.15);
    expect(m.wrongAnswered).toBeLessThanOrEqual(0.1);
    expect(m.absentInsufficient).toBeGreaterThanOrEqual(0.7);
    expect(fit.calibration.cuts.reference).toBeLessThanOrEqual(fit.calibration.cuts.highlyRelevant);
    expect(rerank(fit.calibration, lookups[1].candidates)[0].right).toBe(true);
  });

  it('uses a stored calibration only for the embedder it was fitted for', () => {
    const c: Calibration = { weights: [...DEFAULT_CALIBRATION.weights], cuts: { reference: 0.3, highlyRelevant: 0.6 } };
    expect(storedCalibration({ embedder: 'local:a', calibration: c, fittedAt: 'x' }, 'local:a')).toEqual(c);
    expect(storedCalibration({ embedder: 'local:a', calibration: c }, 'openai:b')).toBeNull();
    expect(storedCalibration({ embedder: 'local:a', calibration: { weights: [1], cuts: c.cuts } }, 'local:a')).toBeNull();
    expect(storedCalibration({}, 'local:a')).toBeNull();
  });

  it('reads a fit stored before titleOverlap existed with weight 0 for it, and refuses more weights than features', () => {
    const old = { weights: DEFAULT_CALIBRATION.weights.slice(0, FIRST_FEATURE_COUNT), cuts: { reference: 0.3, highlyRelevant: 0.6 } };
    const read = storedCalibration({ embedder: 'local:a', calibration: old }, 'local:a');
    expect(read?.weights).toEqual([...old.weights, 0]);
    const e = evidence({ lexicalShare: 0.5, similarity: 0.4, lexicalRank: 1, coverage: 0.8, titleOverlap: 0.9 });
    expect(logitOfRight(read as Calibration, e)).toBeCloseTo(
      old.weights.reduce((z, w, i) => z + w * features(e)[i], 0),
      12,
    );
    expect(storedCalibration({ embedder: 'local:a', calibration: { ...old, weights: [...DEFAULT_CALIBRATION.weights, 1] } }, 'local:a')).toBeNull();
    expect(storedCalibration({ embedder: 'local:a', calibration: { ...old, weights: old.weights.slice(1) } }, 'local:a')).toBeNull();
  });

  it('reads titleOverlap as the last feature, 0 when absent', () => {
    expect(FEATURE_NAMES.at(-1)).toBe('titleOverlap');
    expect(features(evidence({ titleOverlap: 0.6 })).at(-1)).toBe(0.6);
    expect(features(evidence()).at(-1)).toBe(0);
  });
});
