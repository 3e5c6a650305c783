import { availableParallelism } from 'node:os';
import type { ClassifierTrainingData, ClassifierWeights } from './routing/index.js';
import type { TrainingJob } from './training/training-job.js';
import { TrainingQueue, type TrainingOutcome } from './training/training-queue.js';
import { WorkerTrainingRunner } from './training/worker-training-runner.js';

/** A training running longer than this is stopped (its thread terminated); the router keeps what it serves. */
export const CLASSIFIER_TRAINING_TIMEOUT_MS = 120_000;

/**
 * Linux niceness of the training threads: when the cores are all busy, routing requests get the larger
 * share (a training takes longer under load rather than slowing routing); on an idle core it runs at
 * full speed. 0 would share the CPU equally.
 */
export const CLASSIFIER_TRAINING_NICENESS = 5;

/** Training threads: one per CPU beyond the one the API's event loop needs, at least 1, at most 4. */
export function trainingThreadCount(cpus = availableParallelism()): number {
  return Math.max(1, Math.min(4, cpus - 1));
}

/**
 * Trains tenants' intent classifiers off the API's thread: a small pool of `worker_threads` behind a
 * queue keyed by tenant, in which a newer training of a tenant supersedes its older one (waiting or
 * running). Threads start on first use; `close()` (the router cache's `onModuleDestroy`) cancels what is
 * waiting or running and ends them. See docs/hot-paths.md "Intent classifier training".
 */
export class ClassifierTrainer {
  private readonly runners: WorkerTrainingRunner[];
  private readonly queue: TrainingQueue<TrainingJob, ClassifierWeights>;

  constructor(threads = trainingThreadCount(), niceness = CLASSIFIER_TRAINING_NICENESS) {
    this.runners = Array.from({ length: threads }, (_, i) => new WorkerTrainingRunner(`intent-classifier-training-${i}`, niceness));
    this.queue = new TrainingQueue(this.runners, { timeoutMs: CLASSIFIER_TRAINING_TIMEOUT_MS });
  }

  /**
   * Trains on a worker thread; the data's buffers are transferred (the caller must not read them afterwards).
   * `progress` (an Int32Array over a SharedArrayBuffer) is shared with the thread: 0 when it starts, then the examples seen.
   */
  train(tenantId: string, data: ClassifierTrainingData, progress?: Int32Array): Promise<TrainingOutcome<ClassifierWeights>> {
    return this.queue.submit(tenantId, progress !== undefined ? { ...data, progress } : data);
  }

  get pending(): { waiting: number; running: number } {
    return { waiting: this.queue.waitingCount, running: this.queue.runningCount };
  }

  /** Cancels waiting and running trainings (they resolve `cancelled`) and ends the threads. */
  async close(): Promise<void> {
    await this.queue.close();
    await Promise.all(this.runners.map((r) => r.close()));
  }
}
