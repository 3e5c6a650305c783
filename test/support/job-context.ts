import { asTenantId } from '@arbiter/common';
import { runStepNow } from '@arbiter/database';
import type { JobContext } from '@arbiter/jobs';

/**
 * A job run's context driven by a test (a crash is a `progress` that throws): first attempt, no checkpoint,
 * no total; `onProgress` sees each progress call's checkpoint.
 */
export function testJobContext<P>(tenantId: string, payload: P, onProgress: (checkpoint: unknown) => void, checkpoint: unknown = null): JobContext<P> {
  return {
    runId: 'crash-test',
    tenantId: asTenantId(tenantId),
    payload,
    attempt: 1,
    checkpoint,
    processed: 0,
    total: null,
    step: runStepNow,
    progress: async (p) => onProgress(p.checkpoint),
    setTotal: async () => undefined,
  };
}
