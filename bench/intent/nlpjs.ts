import type { LabelledExample } from './core.js';
import type { Row } from './datasets.js';
import type { Scored } from './protocol.js';

interface NlpResult {
  intent?: string;
  score?: number;
  classifications?: { intent: string; score: number }[];
}
interface NlpManagerLike {
  addDocument(locale: string, utterance: string, intent: string): void;
  train(): Promise<unknown>;
  process(locale: string, utterance: string): Promise<NlpResult>;
}
type NlpManagerCtor = new (settings: Record<string, unknown>) => NlpManagerLike;

/** Loads `node-nlp` when installed (a devDependency); null otherwise. */
export async function loadNlpJs(): Promise<NlpManagerCtor | null> {
  const name = 'node-nlp';
  try {
    const mod = (await import(name)) as { NlpManager?: NlpManagerCtor; default?: { NlpManager?: NlpManagerCtor } };
    return mod.NlpManager ?? mod.default?.NlpManager ?? null;
  } catch {
    return null;
  }
}

export interface NlpJsModel {
  trainMs: number;
  score(examples: readonly LabelledExample[]): Promise<{ scored: Scored[]; msPerQuery: number }>;
}

/** Trains NLP.js on the same rows; its top classification (even below its own threshold) is kept. */
export async function trainNlpJs(Ctor: NlpManagerCtor, rows: readonly Row[], locale: 'en' | 'zh'): Promise<NlpJsModel> {
  // NLP.js defaults except logging/autosave; NLPJS_NO_NONE=1 also turns its "None" feature off
  const nlu: Record<string, unknown> = { log: false, ...(process.env.NLPJS_NO_NONE === '1' ? { useNoneFeature: false } : {}) };
  const manager = new Ctor({ languages: [locale], forceNER: false, autoSave: false, nlu });
  for (const r of rows) manager.addDocument(locale, r.text, r.intent);
  const start = performance.now();
  await manager.train();
  const trainMs = performance.now() - start;
  return {
    trainMs,
    async score(examples) {
      const scored: Scored[] = [];
      const t0 = performance.now();
      for (const ex of examples) {
        const res = await manager.process(locale, ex.text);
        const top = res.classifications?.[0];
        const intent = top !== undefined && top.intent !== 'None' ? top.intent : null;
        scored.push({ expected: ex.intent, intent, confidence: top?.score ?? 0 });
      }
      return { scored, msPerQuery: (performance.now() - t0) / Math.max(1, examples.length) };
    },
  };
}
