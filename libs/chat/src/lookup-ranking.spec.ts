import { describe, expect, it } from '@jest/globals';
import type { LookupResultItem, RetrievalConfidence } from '@arbiter/retrieval';
import { itemLevel, pickBestLookup, turnDocuments, type RankedLookup } from './lookup-ranking.js';

const doc = (filePath: string, relevance: number, source: 'L0' | 'L1' = 'L1'): LookupResultItem => ({
  documentId: `id-${filePath}`,
  filePath,
  title: filePath,
  domain: 'd',
  content: '',
  distance: 0,
  similarity: relevance,
  relevance,
  matches: 1,
  source,
  fileName: null,
  page: null,
  pageEnd: null,
  section: null,
});

const confidence = (score: number): RetrievalConfidence => ({
  score,
  level: 'medium',
  reasons: [],
  event: 'medium-confidence',
  profile: null,
  components: { countScore: 0, qualityScore: 0, scenarioScore: 0 },
});

const lookup = (
  name: string,
  opts: {
    level: 'PRECISE' | 'HIGHLY_RELEVANT' | 'REFERENCE';
    hint?: 'PARTIAL' | 'INSUFFICIENT' | null;
    score?: number;
    items?: LookupResultItem[];
    withheld?: LookupResultItem[];
  },
): RankedLookup & { name: string } => {
  const items = opts.items ?? [doc(`${name}.md`, 0.8)];
  const withheld = opts.withheld ?? [];
  return {
    name,
    items,
    withheld,
    result: { relevanceLevel: opts.level, completenessHint: opts.hint ?? null, confidence: confidence(opts.score ?? 0.5), results: [...items, ...withheld] },
  };
};

describe('pickBestLookup', () => {
  it.each([
    ['no lookup', [], null],
    ['one lookup', [lookup('a', { level: 'REFERENCE' })], 'a'],
    ['results beat none, whatever the level', [lookup('a', { level: 'PRECISE', items: [] }), lookup('b', { level: 'REFERENCE' })], 'b'],
    [
      'higher relevance level',
      [lookup('a', { level: 'REFERENCE', score: 0.9 }), lookup('b', { level: 'HIGHLY_RELEVANT', score: 0.1 }), lookup('c', { level: 'PRECISE', score: 0.1 })],
      'c',
    ],
    [
      'PARTIAL over INSUFFICIENT at the same level',
      [lookup('a', { level: 'REFERENCE', hint: 'INSUFFICIENT', score: 0.9 }), lookup('b', { level: 'REFERENCE', hint: 'PARTIAL', score: 0.2 })],
      'b',
    ],
    [
      'then the confidence score',
      [lookup('a', { level: 'REFERENCE', hint: 'PARTIAL', score: 0.3 }), lookup('b', { level: 'REFERENCE', hint: 'PARTIAL', score: 0.6 })],
      'b',
    ],
    ['the first of equals', [lookup('a', { level: 'PRECISE', score: 0.5 }), lookup('b', { level: 'PRECISE', score: 0.5 })], 'a'],
    ['an unknown level ranks below REFERENCE', [lookup('a', { level: 'BOGUS' as 'REFERENCE' }), lookup('b', { level: 'REFERENCE' })], 'b'],
  ])('%s', (_name, records, expected) => {
    expect(pickBestLookup(records)?.name ?? null).toBe(expected);
  });
});

describe('itemLevel', () => {
  const strong = {
    relevanceLevel: 'HIGHLY_RELEVANT' as const,
    results: [doc('first.md', 0.6), doc('second.md', 0.9, 'L0'), doc('third.md', 0.9), doc('fourth.md', 0.3)],
  };
  it.each([
    ['the first result carries the lookup grade (tenant thresholds)', strong, 'first.md', 'HIGHLY_RELEVANT'],
    ['another exact hit at the default threshold is PRECISE', strong, 'second.md', 'PRECISE'],
    ['another vector hit at the default threshold is HIGHLY_RELEVANT', strong, 'third.md', 'HIGHLY_RELEVANT'],
    ['padding below the threshold is REFERENCE', strong, 'fourth.md', 'REFERENCE'],
    [
      'a REFERENCE lookup does not lend its grade: the first result is graded by its own relevance',
      { relevanceLevel: 'REFERENCE' as const, results: [doc('a.md', 0.4)] },
      'a.md',
      'REFERENCE',
    ],
    [
      'a strong first result of a REFERENCE lookup is graded by its relevance',
      { relevanceLevel: 'REFERENCE' as const, results: [doc('a.md', 0.8, 'L0')] },
      'a.md',
      'PRECISE',
    ],
  ])('%s', (_name, result, filePath, expected) => {
    expect(
      itemLevel(
        result.results.find((r) => r.filePath === filePath)!,
        result,
      ),
    ).toBe(expected);
  });
});

describe('turnDocuments', () => {
  it("lists each document once, the best lookup's first, each graded by its own lookup; withheld documents once", () => {
    const shared = doc('shared.md', 0.9);
    const first = lookup('first', { level: 'REFERENCE', items: [doc('r1.md', 0.4), shared], withheld: [doc('old.md', 0.7)] });
    const best = lookup('best', { level: 'PRECISE', items: [doc('p1.md', 0.9, 'L0'), shared], withheld: [doc('old.md', 0.8)] });
    const { items, withheld } = turnDocuments([first, best], best);
    expect(items.map((i) => [i.filePath, i.relevanceLevel])).toEqual([
      ['p1.md', 'PRECISE'],
      ['shared.md', 'HIGHLY_RELEVANT'],
      ['r1.md', 'REFERENCE'],
    ]);
    expect(withheld.map((w) => [w.filePath, w.relevance])).toEqual([['old.md', 0.8]]);
  });

  it('is empty when nothing came back', () => {
    const none = lookup('none', { level: 'REFERENCE', hint: 'INSUFFICIENT', items: [] });
    expect(turnDocuments([none], none)).toEqual({ items: [], withheld: [] });
  });
});
