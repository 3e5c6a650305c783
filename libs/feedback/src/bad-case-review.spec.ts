import { describe, expect, it } from '@jest/globals';
import { isEmptyReview, labelOf, normalizeReview, reviewOf, reviewProblems, type BadCaseRecord } from './bad-case-review.js';

const DOC = '6f1c2d3e-4a5b-4c6d-8e7f-0a1b2c3d4e5f';
const record = (over: Partial<BadCaseRecord> = {}): BadCaseRecord => ({
  sessionId: 's1',
  intent: null,
  ruleId: null,
  example: null,
  documentId: null,
  note: null,
  status: 'OPEN',
  resolvedAt: null,
  createdAt: new Date('2026-03-01T00:00:00Z'),
  updatedAt: new Date('2026-03-02T00:00:00Z'),
  ...over,
});

describe('bad-case review (pure)', () => {
  it.each([
    [{}, true],
    [{ intent: undefined }, true],
    [{ intent: null }, false],
    [{ documentId: null }, false],
    [{ note: '' }, false],
    [{ status: 'RESOLVED' as const }, false],
  ])('isEmptyReview(%j) = %s', (patch, empty) => {
    expect(isEmptyReview(patch)).toBe(empty);
  });

  it('normalizes: intent trimmed, document id lower-cased, null kept, absent left absent', () => {
    expect(normalizeReview({ intent: '  fault ', documentId: DOC.toUpperCase(), note: ' n ' })).toEqual({ intent: 'fault', documentId: DOC, note: ' n ' });
    expect(normalizeReview({ intent: null, documentId: null, note: null })).toEqual({ intent: null, documentId: null, note: null });
    expect(normalizeReview({ status: 'OPEN' })).toEqual({ status: 'OPEN' });
  });

  it.each([
    ['a known intent and document', { intent: 'fault', documentId: DOC }, []],
    ['clearing is always allowed', { intent: null, documentId: null }, []],
    ['an unknown intent', { intent: 'nope' }, ['intent']],
    ['an unknown document', { documentId: '00000000-0000-4000-8000-000000000000' }, ['documentId']],
    ['both', { intent: 'nope', documentId: '00000000-0000-4000-8000-000000000000' }, ['intent', 'documentId']],
  ])('reviewProblems: %s', (_name, patch, fields) => {
    const problems = reviewProblems(patch, new Set(['fault']), new Set([DOC]));
    expect(problems.map((p) => p.field)).toEqual(fields);
    for (const p of problems) expect(p.errors.join(' ')).toContain(p.field);
  });

  it('the label is present while the record has an intent; the review whenever there is a record', () => {
    expect(labelOf(undefined)).toBeNull();
    expect(reviewOf(undefined, new Map())).toBeNull();
    expect(labelOf(record({ documentId: DOC }))).toBeNull();
    expect(labelOf(record({ intent: 'fault', ruleId: 'r1', example: 'q' }))).toEqual({
      intent: 'fault',
      ruleId: 'r1',
      example: 'q',
      labelledAt: '2026-03-02T00:00:00.000Z',
    });
  });

  it('the review resolves its document by id; a deleted one reads as null', () => {
    const resolved = record({ intent: 'fault', documentId: DOC, note: 'n', status: 'RESOLVED', resolvedAt: new Date('2026-03-03T00:00:00Z') });
    const docs = new Map([[DOC, { id: DOC, title: 'Manual', filePath: 'm/manual.md' }]]);
    expect(reviewOf(resolved, docs)).toEqual({
      status: 'RESOLVED',
      intent: 'fault',
      document: { id: DOC, title: 'Manual', filePath: 'm/manual.md' },
      note: 'n',
      resolvedAt: '2026-03-03T00:00:00.000Z',
      updatedAt: '2026-03-02T00:00:00.000Z',
    });
    expect(reviewOf(resolved, new Map())?.document).toBeNull();
  });
});
