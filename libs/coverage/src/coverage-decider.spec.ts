import { describe, expect, it } from '@jest/globals';
import { decideStoredSession } from './coverage-decider.js';
import type { CandidateSession } from './coverage-backfill.repository.js';
import { CoverageEvaluatorV1 } from './evaluator/coverage-evaluator.v1.js';

const v1 = new CoverageEvaluatorV1();

const session = (overrides: Partial<CandidateSession>): CandidateSession => ({
  id: 's1',
  createdAt: '2026-03-01 10:00:00.123456+00',
  channel: 'web',
  status: 'SUCCESS',
  outcome: 'SUCCESS',
  query: '机械臂报警 E201',
  answer: '请检查伺服驱动器电源。',
  references: [{ filePath: 'a.md', score: 0.8 }],
  media: [],
  knowledgeSearched: true,
  ...overrides,
});

describe('decideStoredSession: succeeded turns only (docs/spec/coverage.md)', () => {
  it('decides SUCCESS and BAD_CASE of a successful run', () => {
    expect(decideStoredSession(v1, 't', session({})).ok).toBe(true);
    expect(decideStoredSession(v1, 't', session({ status: 'BAD_CASE' })).ok).toBe(true);
    expect(decideStoredSession(v1, 't', session({ status: 'BAD_CASE', outcome: null })).ok).toBe(true);
  });

  it('rejects a FAILED run, also once feedback made it BAD_CASE', () => {
    for (const status of ['FAILED', 'BAD_CASE']) {
      const out = decideStoredSession(v1, 't', session({ status, outcome: 'FAILED' }));
      expect(out).toMatchObject({ ok: false, rejected: { code: 'SESSION_NOT_SUCCEEDED' } });
    }
  });
});
