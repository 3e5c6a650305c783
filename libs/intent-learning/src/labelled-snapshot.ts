/**
 * A labelled set taken from what operators and users already said (docs/learning.md "Labelled data"):
 * review labels on logged decisions, labels on bad cases, and verified AUTO cases of the case library.
 * Pure: merges the sources, first source wins for the same text.
 */

export const LABEL_SOURCES = ['review', 'bad_cases', 'case_library'] as const;
export type LabelSource = (typeof LABEL_SOURCES)[number];

export interface SourcedLabel {
  text: string;
  intent: string | null;
}

export interface SnapshotMerge {
  examples: { line: number; text: string; intent: string | null }[];
  /** Examples taken from each source (after dropping duplicates and unknown intents). */
  counts: Record<LabelSource, number>;
  duplicates: number;
  /** Intents no rule of the tenant has: their examples are left out. */
  unknownIntents: string[];
  /** Examples beyond the set limit, left out (newest of each source first, so the oldest go). */
  truncated: number;
}

/**
 * Merges sources in the order given (an explicit label — review, bad case — before the implicit one of a
 * useful answer), keeping the first label of a text (trimmed), leaving out labels naming unknown intents.
 */
export function mergeLabelSources(
  sources: readonly { source: LabelSource; labels: readonly SourcedLabel[] }[],
  known: ReadonlySet<string>,
  limit: number,
): SnapshotMerge {
  const seen = new Set<string>();
  const unknown = new Set<string>();
  const counts: Record<LabelSource, number> = { review: 0, bad_cases: 0, case_library: 0 };
  const examples: SnapshotMerge['examples'] = [];
  let duplicates = 0;
  let truncated = 0;
  for (const { source, labels } of sources) {
    for (const label of labels) {
      const text = label.text.trim();
      if (text === '') continue;
      if (label.intent !== null && !known.has(label.intent)) {
        unknown.add(label.intent);
        continue;
      }
      if (seen.has(text)) {
        duplicates++;
        continue;
      }
      if (examples.length >= limit) {
        truncated++;
        continue;
      }
      seen.add(text);
      examples.push({ line: examples.length + 1, text, intent: label.intent });
      counts[source]++;
    }
  }
  return { examples, counts, duplicates, unknownIntents: [...unknown].sort(), truncated };
}
