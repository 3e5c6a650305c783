import type { SemanticAggregation } from './config.js';
import type { IntentIndex } from './intent-index.js';
import { clamp01, cosineDense } from './sparse.js';
import type { SemanticCandidate, SemanticMatchTrace } from './types.js';

/** The tenant's embedding provider as the core needs it (mode A). */
export interface TextEmbedder {
  readonly dimension: number;
  embed(text: string, signal?: AbortSignal): Promise<number[]>;
}

export interface SemanticMatchOptions {
  topK: number;
  aggregation: SemanticAggregation;
  exampleK: number;
  signal?: AbortSignal;
}

/**
 * Mode A: cosine of the message embedding with each rule's `intentVector` (best rule per intent).
 * Mode B: the message against the intent's examples via `IntentIndex` under `aggregation`.
 * An intent's score is the larger of both modes; scores clamp to [0, 1]; top `topK` returned.
 */
export class SemanticMatcher {
  constructor(
    private readonly index: IntentIndex,
    private readonly embedder?: TextEmbedder,
  ) {}

  async match(message: string, opts: SemanticMatchOptions): Promise<SemanticMatchTrace> {
    const start = performance.now();
    const done = (t: Omit<SemanticMatchTrace, 'durationMs'>): SemanticMatchTrace => ({
      ...t,
      durationMs: performance.now() - start,
    });
    if (message.trim() === '') return done({ topCandidates: [], skipped: 'empty_message' });
    const useVectors = (this.index.hasVectors || this.index.denseExamples !== null) && this.embedder !== undefined;
    if (!this.index.hasExamples && !useVectors) {
      return done({ topCandidates: [], skipped: this.index.hasVectors ? 'no_embedder' : 'no_examples_or_vectors' });
    }
    const pending = useVectors ? this.embedder?.embed(message, opts.signal) : undefined;
    const byIntent = new Map<number, SemanticCandidate>();
    const ex = this.index.scoreExamples(message, opts.aggregation, opts.exampleK, opts.topK);
    if (ex !== null) {
      for (let i = 0; i < ex.scores.length; i++) {
        const score = ex.scores[i];
        if (score <= 0) continue;
        const row = ex.nearest[i];
        byIntent.set(i, {
          intent: this.index.intents[i],
          score,
          source: 'examples',
          ...(row >= 0
            ? {
                ruleId: this.index.exampleRuleId[row],
                nearestExample: this.index.exampleTexts[row],
                nearestSimilarity: round(ex.nearestSim[i]),
              }
            : {}),
        });
      }
    }
    let error: string | undefined;
    if (pending !== undefined) {
      try {
        const q = await pending;
        const dense = this.index.denseExamples;
        if (dense !== null && q.length === dense.dimension) {
          const d = dense.score(q, opts.aggregation, opts.exampleK);
          for (let i = 0; i < d.scores.length; i++) {
            const current = byIntent.get(i);
            if (d.scores[i] <= 0 || (current !== undefined && current.score >= d.scores[i])) continue;
            const example = d.nearest[i];
            byIntent.set(i, {
              intent: this.index.intents[i],
              score: d.scores[i],
              source: 'example_vectors',
              ...(example >= 0
                ? {
                    ruleId: this.index.exampleRuleId[example],
                    nearestExample: this.index.exampleTexts[example],
                    nearestSimilarity: round(d.nearestSim[i]),
                  }
                : {}),
            });
          }
        }
        for (const entry of this.index.intentVectors) {
          if (q.length !== entry.vector.length) {
            error = `message embedding has ${q.length} dimensions, intent vectors ${entry.vector.length}`;
            break;
          }
          const score = clamp01(cosineDense(q, entry.vector));
          if (score <= 0) continue;
          const current = byIntent.get(entry.intent);
          if (current === undefined || score > current.score) {
            byIntent.set(entry.intent, { intent: this.index.intents[entry.intent], score, source: 'vector', ruleId: entry.ruleId });
          }
        }
      } catch (e) {
        error = `embedding failed: ${e instanceof Error ? e.message : String(e)}`;
        if (ex === null) return done({ topCandidates: [], skipped: 'embedding_failed', error });
      }
    }
    const topCandidates = [...byIntent.values()]
      .sort((a, b) => b.score - a.score || a.intent.localeCompare(b.intent))
      .slice(0, opts.topK)
      .map((c) => ({ ...c, score: round(c.score) }));
    return done({
      topCandidates,
      ...(ex !== null ? { aggregation: ex.aggregation } : {}),
      ...(ex?.classifierVersion !== undefined ? { classifierVersion: ex.classifierVersion } : {}),
      ...(ex?.interimIntents !== undefined ? { interimIntents: ex.interimIntents } : {}),
      ...(error !== undefined ? { error } : {}),
    });
  }
}

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}
