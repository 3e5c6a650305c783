import { describe, expect, it } from '@jest/globals';
import { decideFeedback, type FeedbackDecision, type FeedbackState } from './feedback-transition.js';

const s = (
  status: FeedbackState['status'],
  feedback: FeedbackState['feedback'] = null,
  statusBefore: FeedbackState['statusBefore'] = null,
  hasAnswer = true,
): FeedbackState => ({
  status,
  feedback,
  statusBefore,
  hasAnswer,
});

describe('decideFeedback', () => {
  it.each<[string, FeedbackState, 'useful' | 'not_useful', FeedbackDecision]>([
    ['PENDING takes no feedback', s('PENDING'), 'useful', { kind: 'reject', reason: 'SESSION_NOT_FINISHED' }],
    ['RUNNING takes no feedback', s('RUNNING'), 'not_useful', { kind: 'reject', reason: 'SESSION_NOT_FINISHED' }],
    ['first useful on SUCCESS creates the case', s('SUCCESS'), 'useful', { kind: 'apply', status: 'SUCCESS', statusBefore: 'SUCCESS', caseAction: 'activate' }],
    ['first not_useful on SUCCESS → BAD_CASE', s('SUCCESS'), 'not_useful', { kind: 'apply', status: 'BAD_CASE', statusBefore: 'SUCCESS', caseAction: 'none' }],
    [
      'not_useful on FAILED → BAD_CASE remembering FAILED',
      s('FAILED'),
      'not_useful',
      { kind: 'apply', status: 'BAD_CASE', statusBefore: 'FAILED', caseAction: 'none' },
    ],
    ['useful on FAILED: no answer to keep', s('FAILED'), 'useful', { kind: 'reject', reason: 'NO_ANSWER_TO_KEEP' }],
    ['useful on SUCCESS without an answer', s('SUCCESS', null, null, false), 'useful', { kind: 'reject', reason: 'NO_ANSWER_TO_KEEP' }],
    [
      'not_useful on SUCCESS without an answer is fine',
      s('SUCCESS', null, null, false),
      'not_useful',
      { kind: 'apply', status: 'BAD_CASE', statusBefore: 'SUCCESS', caseAction: 'none' },
    ],
    ['repeat useful is idempotent', s('SUCCESS', 'useful', 'SUCCESS'), 'useful', { kind: 'unchanged' }],
    ['repeat not_useful is idempotent', s('BAD_CASE', 'not_useful', 'SUCCESS'), 'not_useful', { kind: 'unchanged' }],
    [
      'useful → not_useful retracts the case',
      s('SUCCESS', 'useful', 'SUCCESS'),
      'not_useful',
      { kind: 'apply', status: 'BAD_CASE', statusBefore: 'SUCCESS', caseAction: 'retract' },
    ],
    [
      'not_useful → useful restores SUCCESS and activates the case',
      s('BAD_CASE', 'not_useful', 'SUCCESS'),
      'useful',
      { kind: 'apply', status: 'SUCCESS', statusBefore: 'SUCCESS', caseAction: 'activate' },
    ],
    ['not_useful → useful on a run that FAILED: 409', s('BAD_CASE', 'not_useful', 'FAILED'), 'useful', { kind: 'reject', reason: 'NO_ANSWER_TO_KEEP' }],
  ])('%s', (_label, state, requested, expected) => {
    expect(decideFeedback(state, requested)).toEqual(expected);
  });
});
