import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ClassifierWeights } from '../routing/softmax-classifier.js';
import { encodeTrainingJob, type TrainingJob, type TrainingWorkerData, type TrainReply, type TrainRequest } from './training-job.js';
import type { TrainingRunner, TrainingStopReason } from './training-queue.js';

/** After a `cancelled` stop (shutdown), a job that has not stopped within this long has its thread terminated. */
const CANCEL_GRACE_MS = 2_000;

/**
 * One training thread (`worker_threads`), started on its first job and kept for the next ones. A job's
 * typed arrays are transferred to it; the weights come back transferred. `superseded` and `cancelled`
 * stops set the job's shared cancel flag (the thread checks it every 1,000 examples); a `timeout`
 * terminates the thread (a new one starts with the next job).
 */
export class WorkerTrainingRunner implements TrainingRunner<TrainingJob, ClassifierWeights> {
  private worker: Worker | null = null;
  private nextId = 1;

  constructor(
    private readonly name = 'intent-classifier-training',
    private readonly niceness = 0,
  ) {}

  run(job: TrainingJob, signal: AbortSignal): Promise<ClassifierWeights | null> {
    const worker = (this.worker ??= this.spawn());
    const id = this.nextId++;
    const cancel = new SharedArrayBuffer(4);
    const flag = new Int32Array(cancel);
    worker.ref();
    return new Promise<ClassifierWeights | null>((resolve, reject) => {
      let lastError: Error | undefined;
      let grace: NodeJS.Timeout | undefined;
      const cleanup = (): void => {
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        signal.removeEventListener('abort', onAbort);
        clearTimeout(grace);
        if (this.worker === worker) worker.unref();
      };
      const onMessage = (reply: TrainReply): void => {
        if (reply.id !== id) return;
        cleanup();
        if (reply.type === 'trained') resolve(reply.weights);
        else if (reply.type === 'stopped') resolve(null);
        else reject(new Error(`classifier training failed: ${reply.message}`));
      };
      const onError = (error: Error): void => {
        lastError = error;
      };
      const onExit = (code: number): void => {
        cleanup();
        if (this.worker === worker) this.worker = null;
        if (signal.aborted) resolve(null);
        else reject(lastError ?? new Error(`the classifier training thread exited with code ${code}`));
      };
      const onAbort = (): void => {
        const reason = signal.reason as TrainingStopReason;
        Atomics.store(flag, 0, 1);
        if (reason === 'timeout') void this.terminate(worker);
        else if (reason === 'cancelled') {
          grace = setTimeout(() => void this.terminate(worker), CANCEL_GRACE_MS);
          grace.unref();
        }
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      signal.addEventListener('abort', onAbort, { once: true });
      if (signal.aborted) onAbort();
      try {
        const encoded = encodeTrainingJob(job);
        const request: TrainRequest = { type: 'train', id, job: encoded.job, cancel };
        worker.postMessage(request, encoded.transfer);
      } catch (error) {
        cleanup();
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  /** Terminates the thread (if started) and resolves once it has exited. */
  async close(): Promise<void> {
    const worker = this.worker;
    if (worker !== null) await this.terminate(worker);
  }

  private async terminate(worker: Worker): Promise<void> {
    if (this.worker === worker) this.worker = null;
    await worker.terminate();
  }

  private spawn(): Worker {
    const workerData: TrainingWorkerData = { niceness: this.niceness };
    const worker = new Worker(workerEntry.url, { workerData, execArgv: workerEntry.execArgv, name: this.name });
    worker.unref();
    // A job in flight hears of a crash through its own listeners; between jobs it only drops the thread.
    worker.on('error', () => undefined);
    worker.once('exit', () => {
      if (this.worker === worker) this.worker = null;
    });
    return worker;
  }
}

/**
 * The compiled worker beside this file (`npm start`: dist/…/classifier-training.worker.js), or — jest,
 * benchmarks and test children run the .ts sources — the .ts through the repo's SWC loader (the same
 * resolution as the embedded database's worker in libs/database/src/embedded-postgres.ts).
 */
const workerEntry = (() => {
  const self = fileURLToPath(import.meta.url);
  const fromSources = self.endsWith('.ts');
  const url = new URL(`./classifier-training.worker.${fromSources ? 'ts' : 'js'}`, import.meta.url);
  if (!fromSources) return { url, execArgv: undefined };
  const loader = path.resolve(path.dirname(self), '../../../../bench/support/register.mjs');
  const registered = process.execArgv.some((arg) => arg.endsWith('bench/support/register.mjs'));
  return { url, execArgv: registered ? process.execArgv : [...process.execArgv, '--import', loader] };
})();
