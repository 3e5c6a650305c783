import { describe, expect, it } from '@jest/globals';
import { DEFAULT_RETRIEVAL_NORMALIZATION } from '../relevance.js';
import { ANSWERABILITY_FEATURE_NAMES } from './answerability.js';
import type { Calibration } from './calibration.js';
import { DEFAULT_CALIBRATION } from './default-calibration.js';
import { DEFAULT_FUSION } from './fusion-settings.js';
import { analyzedTitle, assembleCandidates, type HitChunk, type HybridInput } from './hybrid.js';
import { analyzeText, CONTENT_WORDS } from './text-analyzer.js';

/**
 * The answerability model inside the hybrid assembly (docs/retrieval.md "Answerability"): the order is
 * the ranking model's, the grade the answerability model's, and a result never reads above one before it.
 */
const doc = (documentId: string, title: string, content: string, distance: number): HitChunk => ({
  documentId,
  filePath: `${documentId}.md`,
  title,
  domain: 'd',
  content,
  distance,
});

const base = (calibration: Calibration): HybridInput => ({
  query: 'how much is the card fee',
  vector: [doc('fee', 'Card fee', 'The card fee is 5 euros.', 0.6), doc('pin', 'Card PIN', 'Open the app to reset the PIN.', 0.9)],
  lexical: [
    { ...doc('fee', 'Card fee', 'The card fee is 5 euros.', 0.6), score: 4 },
    { ...doc('pin', 'Card PIN', 'Open the app to reset the PIN.', 0.9), score: 1 },
  ],
  exact: [],
  queryTerms: ['card', 'fee'],
  idf: { card: 0.5, fee: 2 },
  chunkCount: 100,
  fusion: DEFAULT_FUSION,
  calibration,
  normalization: DEFAULT_RETRIEVAL_NORMALIZATION,
});

const only = (name: (typeof ANSWERABILITY_FEATURE_NAMES)[number], weight: number, bias = 0) =>
  ANSWERABILITY_FEATURE_NAMES.map((n) => (n === name ? weight : n === 'bias' ? bias : 0));

describe('answerability in the hybrid assembly', () => {
  it('computes the agreement evidence of each candidate', () => {
    const [fee, pin] = assembleCandidates({ ...base(DEFAULT_CALIBRATION), collectOverlaps: true });
    expect(fee.documentId).toBe('fee');
    expect(fee.agreement).toEqual({
      rareCoverage: 1, // both terms are at or above the (lower) median IDF, 0.5, and both are in the passage
      coverageMargin: expect.closeTo(1 - 0.5 / 2.5, 10) as unknown as number,
      listsAgree: true,
      listPresence: 1,
      typeAsked: true, // "how much"
      typeAnswered: true, // "5 euros"
      knownTerms: 2,
      titleCoverage: 1,
      titleMargin: 0.5,
      // {card, fee, 5, euro} and {card, pin, open, app, reset} share `card`: 1 of 8 terms.
      overlaps: [{ documentId: 'pin', overlap: 0.125 }],
    });
    expect(pin.agreement.rareCoverage).toBe(0.5); // `card`, in its title; not `fee`
    expect(pin.agreement.typeAnswered).toBe(false);
    expect(pin.agreement.listsAgree).toBe(false);
    expect(pin.agreement.titleCoverage).toBe(0.5);
  });

  it.each([
    { name: 'the built-in model (rivalMargin weighs 0)', calibration: DEFAULT_CALIBRATION, collectOverlaps: false, compared: false },
    { name: 'the built-in model in a fit', calibration: DEFAULT_CALIBRATION, collectOverlaps: true, compared: true },
    { name: 'a ranking model only', calibration: { ...DEFAULT_CALIBRATION, answerability: undefined }, collectOverlaps: false, compared: false },
    {
      name: 'a model reading rivalMargin',
      calibration: { ...DEFAULT_CALIBRATION, answerability: { weights: only('rivalMargin', 1), cuts: { reference: 0.5, highlyRelevant: 0.8 } } },
      collectOverlaps: false,
      compared: true,
    },
  ])('compares passages for near-duplicates only when read: $name', ({ calibration, collectOverlaps, compared }) => {
    const [fee] = assembleCandidates({ ...base(calibration), collectOverlaps });
    expect(fee.agreement.overlaps).toEqual(compared ? [{ documentId: 'pin', overlap: 0.125 }] : []);
  });

  it.each([
    { name: 'no answerability model: the ranking probability grades', model: undefined },
    { name: 'a model reading only the question type answered', model: { weights: only('typeAnswered', 4, -2), cuts: { reference: 0.5, highlyRelevant: 0.8 } } },
  ])('$name', ({ model }) => {
    const calibration: Calibration = { ...DEFAULT_CALIBRATION, answerability: model };
    const [fee, pin] = assembleCandidates(base(calibration));
    if (!model) {
      expect(fee.probability).toBe(fee.rankProbability);
      return expect(pin.probability).toBe(pin.rankProbability);
    }
    // sigmoid(4·1 − 2) for the fee article; its relevance maps onto the seed scale by the model's own cuts.
    expect(fee.probability).toBeCloseTo(1 / (1 + Math.exp(-2)), 10);
    expect(fee.relevance).toBeCloseTo(0.75 + ((fee.probability - 0.8) / 0.2) * 0.25, 10);
    expect(pin.probability).toBeCloseTo(1 / (1 + Math.exp(2)), 10);
  });

  it('the order stays the ranking model’s; a result never reads above the one before it', () => {
    // A model that prefers whatever has the smaller margin would grade the second result above the first.
    const calibration: Calibration = {
      ...DEFAULT_CALIBRATION,
      answerability: { weights: only('logitMargin', -1), cuts: { reference: 0.5, highlyRelevant: 0.8 } },
    };
    const out = assembleCandidates(base(calibration));
    expect(out.map((c) => c.documentId)).toEqual(assembleCandidates(base(DEFAULT_CALIBRATION)).map((c) => c.documentId));
    expect(out[0].rankProbability).toBeGreaterThan(out[1].rankProbability);
    expect(out[1].probability).toBe(out[0].probability);
    expect(out[1].relevance).toBe(out[0].relevance);
  });
});

describe('the question\'s stop words in the hybrid assembly (docs/retrieval.md "Lexical index")', () => {
  // The BM25 lists score them; the evidence reads the content words: `the`, `is`, `how` are in nearly every passage.
  const withStopWords: HybridInput = {
    ...base(DEFAULT_CALIBRATION),
    queryTerms: ['how', 'is', 'the', 'card', 'fee'],
    idf: { how: 0.3, is: 0.05, the: 0.01, card: 0.5, fee: 2 },
  };
  it.each([
    { name: 'coverage of the question', read: (c: ReturnType<typeof assembleCandidates>[number]) => c.evidence.coverage },
    { name: 'unknown share', read: (c: ReturnType<typeof assembleCandidates>[number]) => c.evidence.unknownShare },
    { name: 'rare-term coverage', read: (c: ReturnType<typeof assembleCandidates>[number]) => c.agreement.rareCoverage },
    { name: 'known terms', read: (c: ReturnType<typeof assembleCandidates>[number]) => c.agreement.knownTerms },
  ])('$name is what the content words give', ({ read }) => {
    const plain = assembleCandidates({ ...base(DEFAULT_CALIBRATION), collectOverlaps: true });
    const stopped = assembleCandidates({ ...withStopWords, collectOverlaps: true });
    expect(stopped.map(read)).toEqual(plain.map(read));
  });

  it('reads a lexical share as content score against content words: stop words and the heading field order the list only', () => {
    const [plain] = assembleCandidates(base(DEFAULT_CALIBRATION));
    // The same hits, their scores raised by stop words and heading matches, their content part as before.
    const raised = base(DEFAULT_CALIBRATION).lexical.map((h) => ({ ...h, score: h.score + 3, contentScore: h.score }));
    const [stopped] = assembleCandidates({ ...withStopWords, lexical: raised });
    expect(stopped.evidence.lexicalShare).toBe(plain.evidence.lexicalShare);
    // Without a content part the whole score is read.
    const [whole] = assembleCandidates({ ...base(DEFAULT_CALIBRATION), lexical: raised.map(({ contentScore: _, ...h }) => h) });
    expect(whole.evidence.lexicalShare).toBeGreaterThan(plain.evidence.lexicalShare);
  });
});

describe('analyzedTitle (a lookup reads each candidate title analysed once per process)', () => {
  it.each([['Invoices and payment terms (English)'], ['E201 伺服过载报警'], ['']])(
    'gives the content words analyzeText gives for %j, the same frozen list again',
    (title) => {
      const first = analyzedTitle(title);
      expect(first).toEqual(analyzeText(title, CONTENT_WORDS));
      expect(analyzedTitle(title)).toBe(first);
      expect(Object.isFrozen(first)).toBe(true);
    },
  );
});
