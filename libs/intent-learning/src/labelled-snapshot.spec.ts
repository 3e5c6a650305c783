import { describe, expect, it } from '@jest/globals';
import { mergeLabelSources } from './labelled-snapshot.js';

describe('mergeLabelSources', () => {
  const known = new Set(['reset', 'power']);

  it('keeps the first label of a text in source order, drops unknown intents and counts per source', () => {
    const merged = mergeLabelSources(
      [
        {
          source: 'review',
          labels: [
            { text: ' reset it ', intent: 'reset' },
            { text: 'weather?', intent: null },
          ],
        },
        {
          source: 'bad_cases',
          labels: [
            { text: 'reset it', intent: 'power' },
            { text: 'no light', intent: 'power' },
            { text: 'fly', intent: 'travel' },
          ],
        },
        {
          source: 'case_library',
          labels: [
            { text: 'no light', intent: 'reset' },
            { text: 'replace fuse', intent: 'power' },
            { text: '   ', intent: 'power' },
          ],
        },
      ],
      known,
      100,
    );
    expect(merged.examples).toEqual([
      { line: 1, text: 'reset it', intent: 'reset' },
      { line: 2, text: 'weather?', intent: null },
      { line: 3, text: 'no light', intent: 'power' },
      { line: 4, text: 'replace fuse', intent: 'power' },
    ]);
    expect(merged.counts).toEqual({ review: 2, bad_cases: 1, case_library: 1 });
    expect(merged.duplicates).toBe(2);
    expect(merged.unknownIntents).toEqual(['travel']);
    expect(merged.truncated).toBe(0);
  });

  it('stops at the limit and says how many were left out', () => {
    const labels = Array.from({ length: 5 }, (_, i) => ({ text: `m${i}`, intent: 'reset' }));
    const merged = mergeLabelSources([{ source: 'review', labels }], known, 3);
    expect(merged.examples).toHaveLength(3);
    expect(merged.truncated).toBe(2);
  });
});
