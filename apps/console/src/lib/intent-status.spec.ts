import { describe, expect, it } from '@jest/globals';
import { INTENT_STATUS_POLL_MS, intentStatusBadge, intentStatusPollMs, type IntentStatusView } from './intent-status';

const settled: IntentStatusView = {
  rulesVersion: '4',
  classifierVersion: '4',
  training: { state: 'idle', progress: null },
  lastTrainingMs: 120,
  interimIntents: 0,
};

describe('intentStatusPollMs', () => {
  it.each<{ name: string; status: IntentStatusView; expected: number | null }>([
    { name: 'settled', status: settled, expected: null },
    {
      name: 'nothing to train (no rules: no classifier ever)',
      status: { ...settled, rulesVersion: '0', classifierVersion: null, lastTrainingMs: null },
      expected: null,
    },
    { name: 'queued', status: { ...settled, rulesVersion: '5', training: { state: 'queued', progress: null } }, expected: INTENT_STATUS_POLL_MS },
    { name: 'training', status: { ...settled, rulesVersion: '5', training: { state: 'training', progress: 0.4 } }, expected: INTENT_STATUS_POLL_MS },
    { name: 'failed', status: { ...settled, rulesVersion: '5', training: { state: 'failed', progress: null } }, expected: null },
  ])('$name → $expected', ({ status, expected }) => {
    expect(intentStatusPollMs(status)).toBe(expected);
  });
});

describe('intentStatusBadge', () => {
  it.each([
    ['idle', 'succeeded'],
    ['queued', 'queued'],
    ['training', 'running'],
    ['failed', 'failed'],
  ] as const)('%s → %s', (state, badge) => {
    expect(intentStatusBadge(state)).toBe(badge);
  });
});
