import { assertNever } from '@arbiter/common';
import type { ClassifierState } from './routing/index.js';

/**
 * Where a tenant's classifier training stands on this API process (`GET /admin/intent/status`):
 * - `idle`: the classifier of the stored rules serves (or there is nothing to train: fewer than two intents with examples);
 * - `queued`: the stored rules are newer than what this process has compiled (another replica wrote; picked up
 *   within the cache's poll), or their training waits for a training thread;
 * - `training`: a training thread is on it (`progress` 0..1);
 * - `failed`: the last training of the stored rules failed or timed out (the previous classifier or the interim
 *   matcher keeps serving; the next rule write trains again).
 * libs/intent/src/routing/README.md "Edits live at once".
 */
export const INTENT_TRAINING_STATES = ['idle', 'queued', 'training', 'failed'] as const;
export type IntentTrainingState = (typeof INTENT_TRAINING_STATES)[number];

export interface IntentStatus {
  /** The tenant's stored rules version (shared by every replica). */
  rulesVersion: string;
  /** The rules version the classifier serving on this process was trained on; null: none (the interim matcher serves). */
  classifierVersion: string | null;
  training: { state: IntentTrainingState; progress: number | null };
  /** How long the tenant's last completed training took on this process, from submission to serving (ms); null: none yet. */
  lastTrainingMs: number | null;
  /** Intents routed by their examples (the interim matcher) until the retrained classifier serves. */
  interimIntents: number;
}

export interface TrainingObservation {
  /** Rules version stored in the database. */
  storedRules: string;
  /** Rules version of this process's compiled router. */
  servedRules: string;
  classifier: ClassifierState;
  /** The training thread's shared counter: -1 not started, else examples seen; null when no training was submitted. */
  seen: number | null;
  /** Example steps of the whole training (epochs × rows). */
  steps: number;
}

/** The status's `training` from what the router cache observes (pure: see `IntentStatus`). */
export function trainingStatus(o: TrainingObservation): IntentStatus['training'] {
  if (o.storedRules !== o.servedRules) return { state: 'queued', progress: null };
  switch (o.classifier) {
    case 'ready':
    case 'not_applicable':
      return { state: 'idle', progress: null };
    case 'failed':
      return { state: 'failed', progress: null };
    case 'none':
      return { state: 'queued', progress: null };
    case 'training':
      if (o.seen === null || o.seen < 0) return { state: 'queued', progress: null };
      return { state: 'training', progress: o.steps > 0 ? Math.min(1, Math.round((o.seen / o.steps) * 1000) / 1000) : 0 };
    default:
      return assertNever(o.classifier);
  }
}
