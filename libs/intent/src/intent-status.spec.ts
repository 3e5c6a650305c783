import { describe, expect, it } from '@jest/globals';
import { trainingStatus, type TrainingObservation } from './intent-status.js';

const base: TrainingObservation = { storedRules: '3', servedRules: '3', classifier: 'ready', seen: null, steps: 0 };

describe('trainingStatus', () => {
  it.each<{ name: string; o: Partial<TrainingObservation>; expected: ReturnType<typeof trainingStatus> }>([
    { name: 'trained classifier of the stored rules', o: {}, expected: { state: 'idle', progress: null } },
    { name: 'nothing to train', o: { classifier: 'not_applicable' }, expected: { state: 'idle', progress: null } },
    { name: 'stored rules newer than the compiled ones (another replica wrote)', o: { storedRules: '4' }, expected: { state: 'queued', progress: null } },
    {
      name: 'newer stored rules win over a running training',
      o: { storedRules: '4', classifier: 'training', seen: 50, steps: 100 },
      expected: { state: 'queued', progress: null },
    },
    { name: 'submitted, waiting for a thread', o: { classifier: 'training', seen: -1, steps: 100 }, expected: { state: 'queued', progress: null } },
    { name: 'not submitted yet', o: { classifier: 'none' }, expected: { state: 'queued', progress: null } },
    { name: 'on a thread, just started', o: { classifier: 'training', seen: 0, steps: 100 }, expected: { state: 'training', progress: 0 } },
    { name: 'on a thread, a third done', o: { classifier: 'training', seen: 1000, steps: 3000 }, expected: { state: 'training', progress: 0.333 } },
    { name: 'on a thread, counted past the end', o: { classifier: 'training', seen: 120, steps: 100 }, expected: { state: 'training', progress: 1 } },
    { name: 'training failed', o: { classifier: 'failed' }, expected: { state: 'failed', progress: null } },
  ])('$name → $expected.state', ({ o, expected }) => {
    expect(trainingStatus({ ...base, ...o })).toEqual(expected);
  });
});
