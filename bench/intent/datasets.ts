import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { IntentRuleDef, LabelledExample } from './core.js';

export interface Row {
  text: string;
  intent: string;
}

/** `DATASETS_DIR`, default `../shared/datasets` relative to the repository root (the working directory). */
export function datasetsDir(): string {
  return resolve(process.env.DATASETS_DIR ?? resolve(process.cwd(), '../shared/datasets'));
}

export function readJsonl(...parts: string[]): Row[] {
  const file = resolve(datasetsDir(), ...parts);
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Row);
}

/** One rule per intent, its training texts as `semanticExamples` (the benchmark's tenant). */
export function rulesFromRows(rows: readonly Row[]): IntentRuleDef[] {
  const byIntent = new Map<string, string[]>();
  for (const r of rows) {
    const list = byIntent.get(r.intent) ?? [];
    list.push(r.text);
    byIntent.set(r.intent, list);
  }
  return [...byIntent.entries()].map(([intent, semanticExamples], i) => ({
    id: `rule-${i}`,
    intent,
    keywords: [],
    patterns: [],
    semanticExamples,
    priority: 0,
    enabled: true,
    action: 'knowledge',
    confidenceProfile: 'search',
  }));
}

export function labelled(rows: readonly Row[], oosLabel?: string): LabelledExample[] {
  return rows.map((r) => ({ text: r.text, intent: r.intent === oosLabel ? null : r.intent }));
}

/** Seeded stratified split: `holdout` examples per intent (at least 1 kept for training). */
export function stratifiedSplit(rows: readonly Row[], holdoutShare: number, seed = 7): { train: Row[]; holdout: Row[] } {
  let s = seed;
  const rand = (): number => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s / 4294967296;
  };
  const byIntent = new Map<string, Row[]>();
  for (const r of rows) byIntent.set(r.intent, [...(byIntent.get(r.intent) ?? []), r]);
  const train: Row[] = [];
  const holdout: Row[] = [];
  for (const list of byIntent.values()) {
    const shuffled = list
      .map((r) => ({ r, k: rand() }))
      .sort((a, b) => a.k - b.k)
      .map((x) => x.r);
    const n = Math.min(shuffled.length - 1, Math.max(1, Math.round(shuffled.length * holdoutShare)));
    holdout.push(...shuffled.slice(0, n));
    train.push(...shuffled.slice(n));
  }
  return { train, holdout };
}
