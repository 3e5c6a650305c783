import { afterAll, describe, expect, it } from '@jest/globals';
import { ClassifierTrainer } from '../classifier-trainer.js';
import { HashingFeaturizer } from '../routing/text-features.js';
import { TfidfVectorizer } from '../routing/tfidf.js';
import { trainSoftmaxSync, type ClassifierHyperparameters } from '../routing/softmax-classifier.js';
import { trainingSteps, type TrainingJob } from './training-job.js';
import { WorkerTrainingRunner } from './worker-training-runner.js';

const texts = ['book a flight to paris', 'reserve a plane ticket', 'flight booking please', 'what is the weather', 'will it rain today', 'weather forecast'];
const featurizer = new HashingFeaturizer({ bits: 12 });

function job(hyper: ClassifierHyperparameters): TrainingJob {
  const { rows } = TfidfVectorizer.fit(featurizer, texts);
  return { rows, labels: Int32Array.from([0, 0, 0, 1, 1, 1]), numClasses: 2, buckets: featurizer.buckets, hyper };
}

/** Epochs enough that the job never ends by itself within a test: only a stop ends it. */
const ENDLESS: ClassifierHyperparameters = { epochs: 1e9, minDf: 1, yieldEvery: 1 };

describe('WorkerTrainingRunner (a real worker thread)', () => {
  const runner = new WorkerTrainingRunner('test-training');
  afterAll(() => runner.close());

  it('trains in the thread to the same weights as on this thread', async () => {
    const hyper = { epochs: 8, minDf: 1, seed: 5 };
    const local = job(hyper);
    const expected = trainSoftmaxSync(local.rows, local.labels, 2, local.buckets, hyper);
    const weights = await runner.run(job(hyper), new AbortController().signal);
    expect(weights).not.toBeNull();
    expect(Array.from(weights?.weights ?? [])).toEqual(Array.from(expected?.weights ?? []));
    expect(Array.from(weights?.bias ?? [])).toEqual(Array.from(expected?.bias ?? []));
  });

  it('reports progress through the shared counter: 0 at the start, the examples seen, all of them at the end', async () => {
    const progress = new Int32Array(new SharedArrayBuffer(4)).fill(-1);
    const hyper = { epochs: 4, minDf: 1, yieldEvery: 1 };
    const sent = { ...job(hyper), progress };
    const total = trainingSteps(sent);
    expect(total).toBe(4 * texts.length);
    await expect(runner.run(sent, new AbortController().signal)).resolves.not.toBeNull();
    expect(Atomics.load(progress, 0)).toBe(total);
  });

  it('stops a job when its signal aborts (superseded) and keeps the thread for the next job', async () => {
    const controller = new AbortController();
    const running = runner.run(job(ENDLESS), controller.signal);
    controller.abort('superseded');
    await expect(running).resolves.toBeNull();
    await expect(runner.run(job({ epochs: 2, minDf: 1 }), new AbortController().signal)).resolves.not.toBeNull();
  });

  it('terminates a job that does not check its flag on timeout; the next job starts a new thread', async () => {
    const controller = new AbortController();
    const running = runner.run(job({ epochs: 1e9, minDf: 1, yieldEvery: 1e9 }), controller.signal);
    controller.abort('timeout');
    await expect(running).resolves.toBeNull();
    await expect(runner.run(job({ epochs: 2, minDf: 1 }), new AbortController().signal)).resolves.not.toBeNull();
  });

  it('fails a job the thread cannot decode', async () => {
    const bad = { ...job({}), labels: Int32Array.from([0, 0, 0, 1, 1, 7]) };
    await expect(runner.run(bad, new AbortController().signal)).rejects.toThrow(/label 7 outside/);
  });
});

describe('ClassifierTrainer', () => {
  it('shutting down with a training in flight resolves it as cancelled and ends the thread', async () => {
    const trainer = new ClassifierTrainer(1);
    const first = trainer.train('t1', job(ENDLESS));
    const queued = trainer.train('t2', job({ epochs: 1, minDf: 1 }));
    expect(trainer.pending).toEqual({ waiting: 1, running: 1 });
    await trainer.close();
    await expect(first).resolves.toEqual({ status: 'cancelled' });
    await expect(queued).resolves.toEqual({ status: 'cancelled' });
    expect(trainer.pending).toEqual({ waiting: 0, running: 0 });
  });

  it("a tenant's newer training supersedes the running one", async () => {
    const trainer = new ClassifierTrainer(1);
    try {
      const old = trainer.train('t', job(ENDLESS));
      const current = trainer.train('t', job({ epochs: 3, minDf: 1 }));
      await expect(old).resolves.toEqual({ status: 'superseded' });
      const outcome = await current;
      expect(outcome.status).toBe('trained');
    } finally {
      await trainer.close();
    }
  });
});
