import type { SemanticAggregation } from './config.js';
import { DenseExamples } from './dense-examples.js';
import { IntentAggregator } from './intent-aggregator.js';
import { blendWithInterim, DEFAULT_INTERIM_OPTIONS, examplesFingerprint, interimProbabilities, type InterimOptions } from './interim-matcher.js';
import { InvertedIndex } from './inverted-index.js';
import {
  SoftmaxClassifier,
  type ClassifierHyperparameters,
  type ClassifierTrainOptions,
  type ClassifierWeights,
  type WarmStart,
} from './softmax-classifier.js';
import { SparseRowsBuilder, type SparseRows, type SparseVec } from './sparse.js';
import { HashingFeaturizer } from './text-features.js';
import { TfidfVectorizer } from './tfidf.js';
import type { IntentRuleDef } from './types.js';

export interface IntentVectorEntry {
  intent: number;
  ruleId: string;
  vector: Float32Array;
}

/** Per-intent scores from mode B, with the nearest example of each intent for the trace. */
export interface ExampleScores {
  /**
   * Aggregation actually applied: `classifier` is served by the interim matcher (`interim`) until a
   * classifier is trained, by `centroid_knn` when there is nothing to train (a single intent).
   */
  aggregation: SemanticAggregation | 'interim';
  scores: Float32Array;
  /** Row of the nearest example per intent (see `exampleTexts`), -1 when not looked up / none. */
  nearest: Int32Array;
  nearestSim: Float32Array;
  /** With `classifier`: the version label of the rule set the serving classifier was trained on. */
  classifierVersion?: string;
  /**
   * With `classifier`: how many intents the interim matcher scored (those the serving classifier was not
   * trained on as they are now; every intent when no classifier serves yet). Absent: none.
   */
  interimIntents?: number;
}

/** What a worker needs to train this index's classifier (see `IntentIndex.takeTrainingData`). */
export interface ClassifierTrainingData {
  rows: SparseRows;
  labels: Int32Array;
  numClasses: number;
  buckets: number;
  hyper: ClassifierHyperparameters;
  /** Continue from the carried-over classifier (see {@link WARM_START_EPOCHS}). */
  warmStart?: WarmStart;
}

/**
 * A rebuilt index whose carried-over classifier knows its intents trains by continuing from it: this
 * many epochs instead of the full 10 (on CLINC150 with one intent added: the same validation accuracy
 * and log loss as training from scratch, at about a third of the CPU).
 */
export const WARM_START_EPOCHS = 3;
/** After this many warm starts in a row the next training starts from scratch (no drift over long edit chains). */
export const MAX_WARM_STARTS = 5;

/**
 * A previous index's classifier keeps serving a rebuilt index until the new one is trained when it
 * knows at least this share of the new index's intents (an edit of a few rules); otherwise
 * `centroid_knn` serves meanwhile (e.g. a bulk import into a small tenant).
 */
export const CARRY_OVER_MIN_KNOWN_INTENTS = 0.9;

export type ClassifierState = 'none' | 'training' | 'ready' | 'failed' | 'not_applicable';

export interface IntentIndexOptions {
  featurizer?: HashingFeaturizer;
  /** Dimension of the provider's vectors (modes A and provider-B); vectors of another length are left out. */
  vectorDimension?: number;
  /** The interim matcher's softmax (default {@link DEFAULT_INTERIM_OPTIONS}); benchmarks vary it. */
  interim?: InterimOptions;
}

interface Example {
  text: string;
  intent: number;
  ruleId: string;
  vector?: number[];
}

/**
 * The compiled semantic side of one tenant's rule set: TF-IDF example vectors in an inverted index,
 * per-intent centroids, mode-A intent vectors, provider example vectors, and (once trained) a
 * softmax classifier. Immutable except for the classifier, which `trainClassifier` swaps in.
 * Rebuild it whenever the tenant's rules change.
 */
export class IntentIndex {
  readonly intents: string[];
  /** Example rows, grouped by intent (each intent owns [intentRowStart[i], intentRowStart[i + 1])). */
  readonly exampleTexts: string[];
  readonly exampleIntent: Int32Array;
  readonly exampleRuleId: string[];
  readonly intentVectors: IntentVectorEntry[] = [];
  /** Rules whose intentVector / exampleVectors were left out (wrong dimension or count). */
  readonly skippedVectors: string[] = [];
  /** Mode B on provider embeddings (`exampleVectors`), null when no rule carries usable ones. */
  readonly denseExamples: DenseExamples | null;
  private readonly exampleCountPerIntent: Int32Array;
  private readonly intentRowStart: Int32Array;
  private readonly vectorizer: TfidfVectorizer | null = null;
  private readonly examples: InvertedIndex | null = null;
  private readonly centroids: InvertedIndex | null = null;
  private trainRows: SparseRows | null = null;
  private classifier: SoftmaxClassifier | null = null;
  /** Intent → class of `classifier` (-1: unknown to it) when it was carried over from a previous index; null: identity. */
  private classOf: Int32Array | null = null;
  /** Per intent, a fingerprint of its examples (see `examplesFingerprint`). */
  private readonly intentFingerprint: string[];
  /** With a carried-over classifier: the fingerprints of the intents it was trained on, by intent name. */
  private trainedFingerprints: Map<string, string> | null = null;
  /** With a carried-over classifier: 1 for an intent it does not know as it is now (new, or its examples changed). */
  private changed: Uint8Array | null = null;
  private changedCount = 0;
  private readonly interimOptions: InterimOptions;
  private version: string | null = null;
  private state: ClassifierState = 'not_applicable';

  private constructor(rules: readonly IntentRuleDef[], opts: IntentIndexOptions) {
    const intentIds = new Map<string, number>();
    const intentOf = (name: string): number => {
      let id = intentIds.get(name);
      if (id === undefined) intentIds.set(name, (id = intentIds.size));
      return id;
    };
    const dim = opts.vectorDimension;
    this.interimOptions = opts.interim ?? DEFAULT_INTERIM_OPTIONS;
    const examples: Example[] = [];
    for (const rule of rules) {
      if (!rule.enabled) continue;
      const v = rule.intentVector;
      if (v !== undefined && v.length > 0) {
        if (dim !== undefined && v.length !== dim) this.skippedVectors.push(rule.id);
        else this.intentVectors.push({ intent: intentOf(rule.intent), ruleId: rule.id, vector: Float32Array.from(v) });
      }
      const ev = rule.exampleVectors;
      const usable = ev !== undefined && dim !== undefined && ev.length === rule.semanticExamples.length && ev.every((x) => x.length === dim);
      if (ev !== undefined && ev.length > 0 && !usable) this.skippedVectors.push(rule.id);
      rule.semanticExamples.forEach((text, j) => {
        if (text.trim() === '') return;
        examples.push({ text, intent: intentOf(rule.intent), ruleId: rule.id, ...(usable ? { vector: ev[j] } : {}) });
      });
    }
    this.intents = [...intentIds.keys()];
    // stable sort by intent: each intent's rows are contiguous, in every posting list too (see `explain`)
    examples.sort((a, b) => a.intent - b.intent);
    this.exampleTexts = examples.map((e) => e.text);
    this.exampleIntent = Int32Array.from(examples, (e) => e.intent);
    this.exampleRuleId = examples.map((e) => e.ruleId);
    this.exampleCountPerIntent = new Int32Array(this.intents.length);
    for (const e of examples) this.exampleCountPerIntent[e.intent]++;
    this.intentRowStart = new Int32Array(this.intents.length + 1);
    for (let i = 0; i < this.intents.length; i++) this.intentRowStart[i + 1] = this.intentRowStart[i] + this.exampleCountPerIntent[i];
    this.intentFingerprint = this.intents.map((_, i) => examplesFingerprint(this.exampleTexts.slice(this.intentRowStart[i], this.intentRowStart[i + 1])));
    const withVectors = examples.flatMap((e, row) => (e.vector !== undefined ? [{ row, e, vector: e.vector }] : []));
    this.denseExamples =
      withVectors.length > 0 && dim !== undefined
        ? new DenseExamples(
            dim,
            withVectors.map((x) => x.vector),
            Int32Array.from(withVectors, (x) => x.e.intent),
            Int32Array.from(withVectors, (x) => x.row),
            this.exampleCountPerIntent,
          )
        : null;
    if (examples.length === 0) return;
    const featurizer = opts.featurizer ?? new HashingFeaturizer();
    const { vectorizer, rows } = TfidfVectorizer.fit(featurizer, this.exampleTexts);
    this.vectorizer = vectorizer;
    this.examples = InvertedIndex.fromRows(rows, featurizer.buckets);
    this.centroids = InvertedIndex.fromRows(this.centroidRows(rows, featurizer.buckets), featurizer.buckets);
    if (this.exampleCountPerIntent.filter((n) => n > 0).length >= 2) {
      this.trainRows = rows;
      this.state = 'none';
    }
  }

  static build(rules: readonly IntentRuleDef[], opts: IntentIndexOptions = {}): IntentIndex {
    return new IntentIndex(rules, opts);
  }

  get exampleCount(): number {
    return this.exampleTexts.length;
  }

  get hasExamples(): boolean {
    return this.exampleTexts.length > 0;
  }

  get hasVectors(): boolean {
    return this.intentVectors.length > 0;
  }

  get classifierState(): ClassifierState {
    return this.state;
  }

  /** Version label of the classifier serving now (its own once trained, a previous index's when carried over), null: none. */
  get classifierVersion(): string | null {
    return this.classifier !== null ? this.version : null;
  }

  /** True while a previous index's classifier serves (this index's own is not trained yet). */
  get classifierCarried(): boolean {
    return this.classOf !== null;
  }

  /**
   * How many intents the interim matcher serves on the `classifier` path now: those a carried-over
   * classifier does not know as they are, every intent with examples while no classifier serves yet, 0
   * once this index's own classifier is installed (or when there is nothing to train).
   */
  get interimIntentCount(): number {
    if (this.classifier !== null) return this.changedCount;
    if (this.state === 'not_applicable') return 0;
    let n = 0;
    for (let i = 0; i < this.intents.length; i++) if (this.exampleCountPerIntent[i] > 0) n++;
    return n;
  }

  /**
   * Trains the per-tenant classifier on this thread (seconds at 15,000 examples, yielding to the event
   * loop) and swaps it in. Until it resolves, `classifier` aggregation is served by `centroid_knn` (or a
   * carried-over classifier). The API trains in a worker thread instead (`takeTrainingData`).
   */
  async trainClassifier(opts: ClassifierTrainOptions = {}, version = 'local'): Promise<void> {
    const rows = this.trainRows;
    if (rows === null || this.state === 'training' || this.state === 'ready') return;
    this.state = 'training';
    try {
      const buckets = this.vectorizer?.featurizer.buckets ?? 0;
      const model = await SoftmaxClassifier.train(rows, this.exampleIntent, this.intents.length, buckets, opts);
      this.serve(model, null, version);
      this.state = 'ready';
      this.trainRows = null;
    } catch (e) {
      this.state = 'failed';
      throw e;
    }
  }

  /**
   * Hands the training data to the caller (to train elsewhere, e.g. a worker thread: the rows' buffers
   * may be transferred, this index no longer reads them) and marks the classifier `training`; null when
   * there is nothing to train or training already started. With a carried-over classifier the data
   * carries a warm start from it (not for the {@link MAX_WARM_STARTS}th one in a row).
   */
  takeTrainingData(hyper: ClassifierHyperparameters = {}): ClassifierTrainingData | null {
    const rows = this.trainRows;
    if (rows === null || this.state !== 'none') return null;
    this.trainRows = null;
    this.state = 'training';
    const data: ClassifierTrainingData = {
      rows,
      labels: this.exampleIntent.slice(),
      numClasses: this.intents.length,
      buckets: this.vectorizer?.featurizer.buckets ?? 0,
      hyper,
    };
    const previous = this.classifier?.trained;
    if (this.classOf !== null && previous?.adagrad !== undefined && (previous.warmStarts ?? 0) < MAX_WARM_STARTS) {
      data.warmStart = { previous, classOf: this.classOf.slice(), epochs: WARM_START_EPOCHS };
    }
    return data;
  }

  /** Swaps in weights trained elsewhere for the data of `takeTrainingData` (atomically: one assignment serves them). */
  installClassifier(weights: ClassifierWeights, version: string): void {
    if (weights.numClasses !== this.intents.length) {
      throw new Error(`classifier has ${weights.numClasses} classes, the index ${this.intents.length} intents`);
    }
    this.serve(SoftmaxClassifier.fromWeights(weights, this.vectorizer?.featurizer.buckets ?? 0), null, version);
    this.state = 'ready';
  }

  /** Training elsewhere failed or was given up: a carried-over classifier keeps serving, else `centroid_knn`. */
  classifierTrainingFailed(): void {
    if (this.state === 'training') this.state = 'failed';
  }

  /**
   * Serves `previous`'s classifier (trained or itself carried) until this index's own is installed,
   * mapped by intent name: an intent it does not know scores 0 on the classifier path (its rules and,
   * with another aggregation, its examples still route), an intent no longer here is dropped. Only when
   * it knows at least {@link CARRY_OVER_MIN_KNOWN_INTENTS} of the intents and uses the same features.
   * Returns whether it was adopted.
   */
  adoptClassifier(previous: IntentIndex): boolean {
    const model = previous.classifier;
    if (model === null || this.classifier !== null || previous.version === null) return false;
    if (this.vectorizer === null || previous.vectorizer === null || this.vectorizer.featurizer.buckets !== previous.vectorizer.featurizer.buckets) return false;
    const previousIntent = new Map(previous.intents.map((name, i) => [name, i]));
    const classOf = new Int32Array(this.intents.length).fill(-1);
    // what the classifier was trained on: the previous index's examples, or (itself carried) what it carried
    const trained = previous.trainedFingerprints ?? new Map(previous.intents.map((name, j) => [name, previous.intentFingerprint[j]]));
    const changed = new Uint8Array(this.intents.length);
    let known = 0;
    let changedCount = 0;
    this.intents.forEach((name, i) => {
      const j = previousIntent.get(name);
      const c = j === undefined ? -1 : previous.classOf === null ? j : previous.classOf[j];
      if (c >= 0) {
        classOf[i] = c;
        known++;
      }
      if (c < 0 || trained.get(name) !== this.intentFingerprint[i]) {
        changed[i] = 1;
        changedCount++;
      }
    });
    if (this.intents.length === 0 || known / this.intents.length < CARRY_OVER_MIN_KNOWN_INTENTS) return false;
    this.serve(model, classOf, previous.version);
    this.trainedFingerprints = trained;
    this.changed = changedCount > 0 ? changed : null;
    this.changedCount = changedCount;
    return true;
  }

  private serve(model: SoftmaxClassifier, classOf: Int32Array | null, version: string): void {
    this.trainedFingerprints = null;
    this.changed = null;
    this.changedCount = 0;
    this.classOf = classOf;
    this.version = version;
    this.classifier = model;
  }

  /** Drops the training vectors without training (saves memory when `classifier` is not used). */
  releaseTrainingData(): void {
    if (this.state === 'training') return;
    this.trainRows = null;
    if (this.state === 'none' || this.state === 'failed') this.state = 'not_applicable';
  }

  /**
   * Mode B on the local TF-IDF index: per-intent scores of `text` under `aggregation`; null when the
   * tenant has no examples. `explainTop`: with a trained classifier, the nearest example is looked up
   * for this many best intents only (the similarity aggregations find it for every intent anyway).
   */
  scoreExamples(text: string, aggregation: SemanticAggregation, k: number, explainTop = 3): ExampleScores | null {
    if (this.vectorizer === null || this.examples === null || this.centroids === null) return null;
    const q = this.vectorizer.transform(text);
    if (aggregation === 'classifier' && this.classifier !== null) return this.classify(q, this.classifier, k, explainTop);
    // No classifier yet (being trained, or its training failed): the interim matcher serves every intent.
    // With nothing to train (a single intent) the raw `centroid_knn` serves, as before.
    const interim = aggregation === 'classifier' && this.state !== 'not_applicable';
    const used = aggregation === 'classifier' ? 'centroid_knn' : aggregation;
    const agg = new IntentAggregator(this.exampleCountPerIntent, k);
    this.examples.forEachDot(q, (row, s) => agg.add(this.exampleIntent[row], row, s));
    const scores = agg.scores(used, used === 'centroid_knn' ? this.centroids.dotAll(q) : undefined);
    if (interim) {
      return {
        aggregation: 'interim',
        scores: interimProbabilities(scores, this.interimOptions),
        nearest: agg.nearest,
        nearestSim: agg.nearestSim,
        interimIntents: this.interimIntentCount,
      };
    }
    return { aggregation: used, scores, nearest: agg.nearest, nearestSim: agg.nearestSim };
  }

  /**
   * Trained-classifier path: softmax probabilities gated by the centroids (an intent whose examples
   * share no feature with the message is not a candidate — a softmax spreads probability over unrelated
   * messages too; the gate keeps gibberish at no_match), nearest examples for the best intents only.
   */
  private classify(q: SparseVec, model: SoftmaxClassifier, k: number, explainTop: number): ExampleScores {
    const nI = this.intents.length;
    let scores: Float32Array = new Float32Array(nI);
    const classOf = this.classOf;
    if (classOf === null) model.predictInto(q, scores);
    else {
      const p = new Float32Array(model.numClasses);
      model.predictInto(q, p);
      for (let i = 0; i < nI; i++) scores[i] = classOf[i] >= 0 ? p[classOf[i]] : 0;
    }
    const gate = this.centroids?.dotAll(q) ?? new Float32Array(nI);
    const changed = this.changed;
    if (changed !== null && this.examples !== null) {
      // a carried-over classifier: the intents it does not know as they are now are scored by their examples
      const agg = new IntentAggregator(this.exampleCountPerIntent, k);
      this.examples.forEachDot(q, (row, s) => agg.add(this.exampleIntent[row], row, s));
      scores = blendWithInterim(scores, interimProbabilities(agg.scores('centroid_knn', gate), this.interimOptions), changed);
    }
    for (let i = 0; i < nI; i++) if (!(gate[i] > 0)) scores[i] = 0;
    const nearest = new Int32Array(nI).fill(-1);
    const nearestSim = new Float32Array(nI);
    const best = Array.from(scores.keys())
      .filter((i) => scores[i] > 0)
      .sort((a, b) => scores[b] - scores[a])
      .slice(0, explainTop);
    for (const i of best) {
      const hit = this.examples?.bestInRange(q, this.intentRowStart[i], this.intentRowStart[i + 1]);
      if (hit === undefined) continue;
      nearest[i] = hit.row;
      nearestSim[i] = hit.dot;
    }
    return {
      aggregation: 'classifier',
      scores,
      nearest,
      nearestSim,
      ...(this.version !== null ? { classifierVersion: this.version } : {}),
      ...(this.changedCount > 0 ? { interimIntents: this.changedCount } : {}),
    };
  }

  /** L2-normalised sum of each intent's example vectors (one row per intent), via one dense scratch row. */
  private centroidRows(m: SparseRows, buckets: number): SparseRows {
    const scratch = new Float64Array(buckets);
    const builder = new SparseRowsBuilder();
    for (let i = 0; i < this.intents.length; i++) {
      const used: number[] = [];
      for (let row = this.intentRowStart[i]; row < this.intentRowStart[i + 1]; row++) {
        for (let p = m.offsets[row]; p < m.offsets[row + 1]; p++) {
          const b = m.idx[p];
          if (scratch[b] === 0) used.push(b);
          scratch[b] += m.val[p];
        }
      }
      let sq = 0;
      for (const b of used) sq += scratch[b] * scratch[b];
      const inv = sq > 0 ? 1 / Math.sqrt(sq) : 0;
      const centroid = new Map<number, number>();
      for (const b of used) {
        if (scratch[b] !== 0) centroid.set(b, scratch[b] * inv);
        scratch[b] = 0;
      }
      builder.push(centroid);
    }
    return builder.build();
  }
}
