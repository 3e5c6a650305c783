import { describe, expect, it } from '@jest/globals';
import {
  agreementEvidence,
  type AgreementEvidence,
  ANSWERABILITY_FEATURE_NAMES,
  answerabilityFeatures,
  passageAnswersType,
  questionType,
  rankContexts,
  termOverlap,
  titleCoverage,
  TWIN_OVERLAP,
} from './answerability.js';
import type { Calibration, RelevanceEvidence } from './calibration.js';
import { storedCalibration } from './calibration.js';
import { evaluateGrading, fitCalibration, gradeProbabilities, type LabelledCandidate, rerank } from './calibration-fit.js';
import { DEFAULT_CALIBRATION } from './default-calibration.js';

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

const agreement = (over: Partial<AgreementEvidence> = {}): AgreementEvidence => ({
  rareCoverage: 0,
  coverageMargin: 0,
  listsAgree: false,
  listPresence: 0,
  typeAsked: false,
  typeAnswered: false,
  knownTerms: 1,
  titleCoverage: 0,
  titleMargin: 0,
  overlaps: [],
  ...over,
});

describe('question type', () => {
  it.each([
    { q: 'How much does a transfer cost?', type: 'amount' },
    { q: 'how many cards can I have', type: 'amount' },
    { q: '转账手续费多少钱', type: 'amount' },
    { q: 'When will my card arrive?', type: 'time' },
    { q: 'how long does a top up take', type: 'time' },
    { q: '退款多久到账', type: 'time' },
    { q: 'Why was my payment declined?', type: 'reason' },
    { q: '为什么机械臂报警', type: 'reason' },
    { q: 'How do I reset my PIN?', type: 'procedure' },
    { q: '示教器怎么校准', type: 'procedure' },
    { q: 'Is Apple Pay supported?', type: null },
    { q: 'E201 报警', type: null },
    { q: '', type: null },
  ])('$q → $type', ({ q, type }) => {
    expect(questionType(q)).toBe(type);
  });

  it.each([
    { type: 'amount', passage: 'Transfers within the EU are free; others cost 0.5%.', holds: true },
    { type: 'amount', passage: '转账免费', holds: true },
    { type: 'amount', passage: 'Open the app and tap Cards.', holds: false },
    { type: 'time', passage: 'Cards arrive within 5 working days.', holds: true },
    { type: 'time', passage: '退款将在三个工作日内到账', holds: true },
    { type: 'time', passage: 'Contact support to unblock your card.', holds: false },
    { type: 'reason', passage: 'A payment may be declined because the card is frozen.', holds: true },
    { type: 'reason', passage: '由于回路断开导致急停', holds: true },
    { type: 'reason', passage: 'Apple Pay works with every card.', holds: false },
    { type: 'procedure', passage: 'Go to Settings, then tap Reset PIN.', holds: true },
    { type: 'procedure', passage: '首先进入菜单，然后点击校准', holds: true },
    { type: 'procedure', passage: 'Our offices are in Berlin.', holds: false },
  ] as const)('a question of type $type is answered by "$passage": $holds', ({ type, passage, holds }) => {
    expect(passageAnswersType(type, passage)).toBe(holds);
  });
});

describe('title coverage', () => {
  it.each([
    { title: ['card', 'arriv'], question: ['card', 'arriv', 'when'], share: 1 },
    { title: ['card', 'arriv', 'late', 'late'], question: ['card'], share: 1 / 3 },
    { title: ['refund'], question: ['card'], share: 0 },
    { title: [], question: ['card'], share: 0 },
  ])('$title in $question → $share', ({ title, question, share }) => {
    expect(titleCoverage(title, new Set(question))).toBeCloseTo(share, 10);
  });
});

describe('rank contexts: the margin is over the best other document, the rival margin over the best one that is not a near-duplicate', () => {
  const twinOfB = [{ documentId: 'b', overlap: TWIN_OVERLAP }];
  it.each([
    // Top over the second document; the others are below it.
    {
      list: [
        { logit: 2, documentId: 'a' },
        { logit: 0.5, documentId: 'b' },
        { logit: -1, documentId: 'c' },
      ],
      margins: [1.5, -1.5, -3],
      rivals: [1.5, -1.5, -3],
    },
    // Another section of the same document is not a rival: the margin is over document b.
    {
      list: [
        { logit: 2, documentId: 'a' },
        { logit: 1.8, documentId: 'a' },
        { logit: 0, documentId: 'b' },
      ],
      margins: [2, 1.8, -2],
      rivals: [2, 1.8, -2],
    },
    // Alone: nothing to stand out from, no margin in its favour.
    { list: [{ logit: -3, documentId: 'a' }], margins: [0], rivals: [0] },
    // b says what a says (overlap at the twin bar): a's rival is c; b, without a recorded overlap, still sees a.
    {
      list: [
        { logit: 2, documentId: 'a', overlaps: twinOfB },
        { logit: 1.9, documentId: 'b' },
        { logit: 0, documentId: 'c' },
      ],
      margins: [expect.closeTo(0.1, 10), expect.closeTo(-0.1, 10), -2],
      rivals: [2, expect.closeTo(-0.1, 10), -2],
    },
    // Below the bar it is a rival.
    {
      list: [
        { logit: 2, documentId: 'a', overlaps: [{ documentId: 'b', overlap: TWIN_OVERLAP - 0.01 }] },
        { logit: 1, documentId: 'b' },
      ],
      margins: [1, -1],
      rivals: [1, -1],
    },
    // Only twins around: no rival at all.
    {
      list: [
        { logit: 1, documentId: 'a', overlaps: twinOfB },
        { logit: 0, documentId: 'b' },
      ],
      margins: [1, -1],
      rivals: [0, -1],
    },
  ])('$list → $margins / $rivals', ({ list, margins, rivals }) => {
    const contexts = rankContexts(list);
    expect(contexts.map((c) => c.margin)).toEqual(margins);
    expect(contexts.map((c) => c.rivalMargin)).toEqual(rivals);
    expect(contexts.map((c) => c.logit)).toEqual(list.map((c) => c.logit));
  });
});

describe('term overlap (Jaccard)', () => {
  it.each([
    { a: ['card', 'arriv'], b: ['card', 'arriv'], overlap: 1 },
    { a: ['card', 'arriv'], b: ['card', 'deliv', 'late'], overlap: 1 / 4 },
    { a: ['card'], b: ['pin'], overlap: 0 },
    { a: [], b: [], overlap: 0 },
  ])('$a ∩ $b → $overlap', ({ a, b, overlap }) => {
    expect(termOverlap(new Set(a), new Set(b))).toBeCloseTo(overlap, 10);
  });
});

describe('agreement evidence', () => {
  const base = { documentId: 'a', coverage: 0, lexicalRank: null, vectorRank: null, passage: '', titleCoverage: 0, terms: null };
  // Terms with IDF 1, 2, 3, 4 (all known): rare = IDF >= the median (2) → the last three.
  const input = (candidates: Parameters<typeof agreementEvidence>[0]['candidates'], query = 'x') => ({
    query,
    idf: [1, 2, 3, 4],
    known: [true, true, true, true],
    candidates,
  });

  it.each([
    { present: [true, false, false, false], rare: 0 },
    { present: [false, true, true, false], rare: 2 / 3 },
    { present: [true, true, true, true], rare: 1 },
  ])('rare-term coverage of $present is $rare', ({ present, rare }) => {
    expect(agreementEvidence(input([{ ...base, present }]))[0].rareCoverage).toBeCloseTo(rare, 10);
  });

  it('unknown terms are not rare terms; no known term → no rare coverage', () => {
    const one = agreementEvidence({ query: 'x', idf: [9, 1], known: [false, true], candidates: [{ ...base, present: [true, true] }] });
    expect(one[0].rareCoverage).toBe(1);
    expect(one[0].knownTerms).toBe(1);
    const none = agreementEvidence({ query: 'x', idf: [9], known: [false], candidates: [{ ...base, present: [true] }] });
    expect(none[0].rareCoverage).toBe(0);
    expect(none[0].knownTerms).toBe(0);
  });

  it('coverage and title margins are over the best other document, lists agree only when first in both', () => {
    const out = agreementEvidence(
      input([
        { ...base, documentId: 'a', present: [], coverage: 0.8, titleCoverage: 0.9, lexicalRank: 1, vectorRank: 1 },
        { ...base, documentId: 'a', present: [], coverage: 0.7, titleCoverage: 0.2, lexicalRank: 2, vectorRank: null },
        { ...base, documentId: 'b', present: [], coverage: 0.5, titleCoverage: 0.4, lexicalRank: null, vectorRank: 2 },
      ]),
    );
    expect(out.map((a) => a.coverageMargin)).toEqual([0.8 - 0.5, 0.7 - 0.5, 0.5 - 0.8].map((x) => expect.closeTo(x, 10) as unknown as number));
    expect(out.map((a) => a.titleMargin)).toEqual([0.9 - 0.4, 0.2 - 0.4, 0.4 - 0.9].map((x) => expect.closeTo(x, 10) as unknown as number));
    expect(out.map((a) => a.listsAgree)).toEqual([true, false, false]);
    expect(out.map((a) => a.listPresence)).toEqual([1, 0.5, 0.5]);
  });

  it('records the overlaps with other documents among the compared candidates (not with its own sections, not below the floor)', () => {
    const terms = (...t: string[]) => new Set(t);
    const out = agreementEvidence(
      input([
        { ...base, documentId: 'a', present: [], terms: terms('card', 'arriv', 'when', 'late') },
        { ...base, documentId: 'a', present: [], terms: terms('card', 'arriv', 'when', 'late') },
        { ...base, documentId: 'b', present: [], terms: terms('card', 'arriv', 'when', 'deliv') }, // 3 of 5
        { ...base, documentId: 'c', present: [], terms: terms('pin', 'reset', 'app', 'code', 'lock', 'card', 'new', 'old', 'set', 'x') }, // 1 of 13
        { ...base, documentId: 'd', present: [], terms: null }, // not compared
      ]),
    );
    expect(out[0].overlaps).toEqual([{ documentId: 'b', overlap: expect.closeTo(3 / 5, 10) }]);
    expect(out[2].overlaps).toEqual([{ documentId: 'a', overlap: expect.closeTo(3 / 5, 10) }]);
    expect(out[3].overlaps).toEqual([]);
    expect(out[4].overlaps).toEqual([]);
  });

  it.each([
    { query: 'How much is the fee?', passage: 'the fee is 2 euros', asked: true, answered: true },
    { query: 'How much is the fee?', passage: 'open the app', asked: true, answered: false },
    { query: 'Is Apple Pay supported?', passage: 'the fee is 2 euros', asked: false, answered: false },
  ])('question type of "$query" against "$passage"', ({ query, passage, asked, answered }) => {
    const [a] = agreementEvidence(input([{ ...base, present: [], passage }], query));
    expect(a.typeAsked).toBe(asked);
    expect(a.typeAnswered).toBe(answered);
  });
});

describe('answerability features', () => {
  it('one value per feature name, each feature where its name says', () => {
    const x = answerabilityFeatures(
      { logit: 20, margin: -1.5, rivalMargin: 3 },
      { unknownShare: 0.25, missesRarestTerm: true },
      agreement({
        rareCoverage: 0.5,
        coverageMargin: -2,
        listsAgree: true,
        listPresence: 0.5,
        typeAsked: true,
        typeAnswered: true,
        knownTerms: 4,
        titleCoverage: 0.75,
        titleMargin: 0.25,
      }),
    );
    expect(x).toHaveLength(ANSWERABILITY_FEATURE_NAMES.length);
    const named = Object.fromEntries(ANSWERABILITY_FEATURE_NAMES.map((n, i) => [n, x[i]]));
    expect(named).toEqual({
      bias: 1,
      rankLogit: 8, // clamped
      logitMargin: -1.5,
      rivalMargin: 3,
      rareCoverage: 0.5,
      coverageMargin: -1, // clamped
      listsAgree: 1,
      listPresence: 0.5,
      typeAsked: 1,
      typeAnswered: 1,
      shortQuery: 0.25,
      unknownShare: 0.25,
      missesRarestTerm: 1,
      titleCoverage: 0.75,
      titleMargin: 0.25,
    });
  });

  it('a type that is not asked cannot be answered; non-finite values read as 0', () => {
    const x = answerabilityFeatures(
      { logit: Number.NaN, margin: 0, rivalMargin: 0 },
      { unknownShare: Number.NaN, missesRarestTerm: false },
      agreement({ typeAnswered: true, knownTerms: 0 }),
    );
    const named = Object.fromEntries(ANSWERABILITY_FEATURE_NAMES.map((n, i) => [n, x[i]]));
    expect(named.typeAnswered).toBe(0);
    expect(named.rankLogit).toBe(0);
    expect(named.unknownShare).toBe(0);
    expect(named.shortQuery).toBe(1);
  });
});

describe('fitting the answerability model', () => {
  // Both kinds of lookups rank the same way (a strong first candidate); only the agreement evidence tells
  // an answered question (its rare terms covered, lists agreeing) from an unanswerable one.
  const lookups = Array.from({ length: 160 }, (_, i) => {
    const answerable = i % 2 === 0;
    const noise = ((i * 37) % 10) / 50;
    const top: LabelledCandidate = {
      evidence: evidence({ coverage: 0.6 + noise, lexicalShare: 0.4, lexicalRank: 1, vectorRank: 1, similarity: 0.5 }),
      right: answerable,
      documentId: 'top',
      agreement: agreement({
        rareCoverage: answerable ? 0.9 - noise : 0.2 + noise,
        listsAgree: answerable || i % 3 === 0,
        titleCoverage: answerable ? 0.7 : 0.3,
      }),
    };
    const other: LabelledCandidate = {
      evidence: evidence({ coverage: 0.2, lexicalShare: 0.1, lexicalRank: 2 }),
      right: false,
      documentId: 'other',
      agreement: agreement(),
    };
    return { answerable, candidates: [top, other] };
  });

  it('separates what the ranking model cannot, and places its own cuts', () => {
    const rankOnly = fitCalibration(lookups, undefined, { answerability: false });
    const full = fitCalibration(lookups);
    expect(rankOnly.calibration.answerability).toBeUndefined();
    expect(full.calibration.answerability?.weights).toHaveLength(ANSWERABILITY_FEATURE_NAMES.length);
    const before = evaluateGrading(lookups, rankOnly.calibration);
    const after = evaluateGrading(lookups, full.calibration);
    expect(after.rightInsufficient).toBeLessThanOrEqual(0.15);
    expect(after.wrongNotInsufficient).toBeLessThan(0.1);
    expect(before.wrongNotInsufficient).toBeGreaterThan(0.5);
    expect(after.absentInsufficient).toBeGreaterThan(0.9);
  });

  it('without agreement evidence the grade reads the ranking model, as before', () => {
    const bare = lookups.map((l) => ({ ...l, candidates: l.candidates.map(({ agreement: _a, ...c }) => c) }));
    const fit = fitCalibration(bare);
    expect(fit.calibration.answerability).toBeUndefined();
    const withModel: Calibration = {
      ...fit.calibration,
      answerability: { weights: ANSWERABILITY_FEATURE_NAMES.map(() => 1), cuts: { reference: 0.5, highlyRelevant: 0.9 } },
    };
    const ranked = gradeProbabilities(withModel, bare[0].candidates);
    expect(ranked.map((r) => r.probability)).toEqual(rerank(fit.calibration, bare[0].candidates).map((c) => c.probability));
  });

  it('a stored calibration with a malformed answerability model is not used; one without it still is', () => {
    const c: Calibration = { weights: [...DEFAULT_CALIBRATION.weights], cuts: { reference: 0.3, highlyRelevant: 0.6 } };
    expect(storedCalibration({ embedder: 'e', calibration: c }, 'e')).toEqual(c);
    const good = { ...c, answerability: { weights: ANSWERABILITY_FEATURE_NAMES.map(() => 0.1), cuts: { reference: 0.4, highlyRelevant: 0.7 } } };
    expect(storedCalibration({ embedder: 'e', calibration: good }, 'e')).toEqual(good);
    expect(storedCalibration({ embedder: 'e', calibration: { ...c, answerability: { weights: [1, 2], cuts: good.answerability.cuts } } }, 'e')).toBeNull();
    expect(
      storedCalibration(
        { embedder: 'e', calibration: { ...c, answerability: { weights: good.answerability.weights, cuts: { reference: 2, highlyRelevant: 1 } } } },
        'e',
      ),
    ).toBeNull();
  });
});
