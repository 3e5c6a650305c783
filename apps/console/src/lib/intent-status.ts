/** What the Intents page shows of `GET /admin/intent/status` (docs/console.md). */
export type IntentTrainingState = 'idle' | 'queued' | 'training' | 'failed';

export interface IntentStatusView {
  rulesVersion: string;
  classifierVersion: string | null;
  training: { state: IntentTrainingState; progress: number | null };
  lastTrainingMs: number | null;
  interimIntents: number;
}

/** How often the page asks again while a training is waiting or running: the status moves within seconds. */
export const INTENT_STATUS_POLL_MS = 1_000;

/**
 * The delay before the next status request, null when nothing is under way: poll while a training waits or
 * runs (`idle` means the classifier of the stored rules serves, or there is nothing to train; `failed` waits
 * for the next rule write).
 */
export function intentStatusPollMs(status: IntentStatusView): number | null {
  switch (status.training.state) {
    case 'queued':
    case 'training':
      return INTENT_STATUS_POLL_MS;
    case 'idle':
    case 'failed':
      return null;
  }
}

/** The badge style of a training state (the jobs page's colours). */
export function intentStatusBadge(state: IntentTrainingState): 'succeeded' | 'queued' | 'running' | 'failed' {
  switch (state) {
    case 'idle':
      return 'succeeded';
    case 'queued':
      return 'queued';
    case 'training':
      return 'running';
    case 'failed':
      return 'failed';
  }
}
