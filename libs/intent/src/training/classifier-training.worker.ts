import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { trainSoftmaxSync } from '../routing/softmax-classifier.js';
import { decodeTrainingJob, weightsTransferList, type TrainingWorkerData, type TrainReply, type TrainRequest } from './training-job.js';

/**
 * The intent classifiers' training thread (see worker-training-runner.ts): trains one job at a time,
 * synchronously, checking the job's cancel flag every `yieldEvery` examples, and sends the weights
 * back with their buffers transferred. A multi-second training stalls only this thread, never the
 * API's event loop; with `niceness` > 0 this thread also yields the CPU to the request threads when
 * cores are short (Linux schedules threads individually: setpriority on this thread's id).
 */
const port = parentPort;
if (port === null) throw new Error('classifier-training.worker must run in a worker thread');

const { niceness } = (workerData ?? {}) as Partial<TrainingWorkerData>;
if (niceness !== undefined && niceness > 0) {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, niceness);
  } catch {
    // not Linux (no /proc/thread-self) or not permitted: the thread keeps the process's priority
  }
}

port.on('message', (request: TrainRequest) => {
  const started = performance.now();
  let reply: TrainReply;
  let transfer: ArrayBuffer[] = [];
  try {
    const job = decodeTrainingJob(request.job);
    const cancel = new Int32Array(request.cancel);
    const progress = job.progress;
    if (progress !== undefined) Atomics.store(progress, 0, 0);
    const shouldStop = (seen: number): boolean => {
      if (progress !== undefined) Atomics.store(progress, 0, seen);
      return Atomics.load(cancel, 0) !== 0;
    };
    const weights = trainSoftmaxSync(job.rows, job.labels, job.numClasses, job.buckets, job.hyper, shouldStop, job.warmStart);
    if (weights === null) reply = { type: 'stopped', id: request.id };
    else {
      reply = { type: 'trained', id: request.id, weights, ms: performance.now() - started };
      transfer = weightsTransferList(weights);
    }
  } catch (error) {
    reply = { type: 'failed', id: request.id, message: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply, transfer);
});
