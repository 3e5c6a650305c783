/**
 * The retry schedule of a delivery (docs/webhooks.md "Retries"): after failed attempt n (1-based) the next one
 * waits `base × 2^(n−1)`, at most 4 hours, and no attempt starts later than 24 hours after the delivery was
 * created (the event stays failed then; an operator can redeliver it).
 */
export const RETRY_WINDOW_MS = 24 * 60 * 60 * 1000;
export const MAX_RETRY_DELAY_MS = 4 * 60 * 60 * 1000;

export function retryDelayMs(failedAttempts: number, baseMs: number): number {
  if (failedAttempts < 1) return 0;
  return Math.min(baseMs * 2 ** Math.min(failedAttempts - 1, 40), MAX_RETRY_DELAY_MS);
}

/** When the next attempt runs after `failedAttempts` failures, or null when it would fall outside the 24-hour window. */
export function nextAttemptAt(createdAt: Date, failedAttempts: number, now: Date, baseMs: number, windowMs = RETRY_WINDOW_MS): Date | null {
  const at = new Date(now.getTime() + retryDelayMs(failedAttempts, baseMs));
  return at.getTime() - createdAt.getTime() > windowMs ? null : at;
}
