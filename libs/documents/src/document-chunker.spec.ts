import { describe, expect, it } from '@jest/globals';
import { chunkDocument, splitLongText, type DocumentChunk } from './document-chunker.js';
import type { DocumentBlock } from './document.types.js';

const h = (level: number, text: string, page?: number): DocumentBlock => ({ kind: 'heading', level, text, ...(page ? { page } : {}) });
const p = (text: string, page?: number, pageEnd?: number): DocumentBlock => ({
  kind: 'paragraph',
  text,
  ...(page ? { page } : {}),
  ...(pageEnd ? { pageEnd } : {}),
});
const list = (items: string[]): DocumentBlock => ({ kind: 'list', text: items.map((i) => `- ${i}`).join('\n') });
const table = (rows: string[][]): DocumentBlock => ({
  kind: 'table',
  text: [`| ${rows[0]?.join(' | ')} |`, `| ${rows[0]?.map(() => '---').join(' | ')} |`, ...rows.slice(1).map((r) => `| ${r.join(' | ')} |`)].join('\n'),
});
const words = (n: number, word = 'word') => Array.from({ length: n }, (_, i) => `${word}${i}`).join(' ') + '.';

/** The chunks without their index, for compact expectations. */
const shape = (chunks: DocumentChunk[]) => chunks.map(({ index: _index, ...rest }) => rest);

describe('chunkDocument: the rules of docs/documents.md "Chunks"', () => {
  const rows: [string, DocumentBlock[], number, ReturnType<typeof shape>][] = [
    [
      '1. a heading starts a chunk, its text first, and names the section',
      [p('Intro text.'), h(1, 'Setup'), p('Install it.'), h(2, 'Editors'), p('Pick one.')],
      200,
      [
        { text: 'Intro text.', section: [] },
        { text: 'Setup\n\nInstall it.', section: ['Setup'] },
        { text: 'Editors\n\nPick one.', section: ['Setup', 'Editors'] },
      ],
    ],
    [
      '1. a heading of the same or a higher level closes the deeper sections',
      [h(1, 'A'), h(2, 'A.1'), h(3, 'A.1.1'), p('x.'), h(2, 'A.2'), p('y.'), h(1, 'B'), p('z.')],
      200,
      [
        { text: 'A', section: ['A'] },
        { text: 'A.1', section: ['A', 'A.1'] },
        { text: 'A.1.1\n\nx.', section: ['A', 'A.1', 'A.1.1'] },
        { text: 'A.2\n\ny.', section: ['A', 'A.2'] },
        { text: 'B\n\nz.', section: ['B'] },
      ],
    ],
    [
      '2. blocks are packed up to the size, separated by a blank line',
      [h(1, 'S'), p('a'.repeat(40)), p('b'.repeat(40)), p('c'.repeat(40))],
      90,
      [
        { text: `S\n\n${'a'.repeat(40)}\n\n${'b'.repeat(40)}`, section: ['S'] },
        { text: 'c'.repeat(40), section: ['S'] },
      ],
    ],
    [
      '3. a list that fits a chunk but not its rest starts the next chunk, whole',
      [h(1, 'S'), p('p'.repeat(60)), list(['one', 'two', 'three', 'four'])],
      90,
      [
        { text: `S\n\n${'p'.repeat(60)}`, section: ['S'] },
        { text: '- one\n- two\n- three\n- four', section: ['S'] },
      ],
    ],
    [
      '3. a heading never stands alone: a table after it is split to fill the chunk',
      [
        h(1, 'Alarms'),
        table([
          ['code', 'meaning'],
          ['E201', 'servo power'],
          ['E202', 'encoder'],
          ['E203', 'overheat'],
        ]),
      ],
      80,
      [
        { text: 'Alarms\n\n| code | meaning |\n| --- | --- |\n| E201 | servo power |', section: ['Alarms'] },
        { text: '| code | meaning |\n| --- | --- |\n| E202 | encoder |\n| E203 | overheat |', section: ['Alarms'] },
      ],
    ],
    [
      '4. a large list is split between items',
      [list(['alpha item', 'beta item', 'gamma item', 'delta item', 'epsilon item', 'zeta item'])],
      64,
      [
        { text: '- alpha item\n- beta item\n- gamma item\n- delta item', section: [] },
        { text: '- epsilon item\n- zeta item', section: [] },
      ],
    ],
    [
      '5. pages: the first and last page of the chunk blocks',
      [h(1, 'Manual', 3), p('Starts here.', 3), p('Runs over a page break.', 3, 4), p('Ends here.', 5)],
      500,
      [{ text: 'Manual\n\nStarts here.\n\nRuns over a page break.\n\nEnds here.', section: ['Manual'], page: 3, pageEnd: 5 }],
    ],
    ['empty blocks are skipped', [p('  '), h(1, ' '), p('Only this.')], 100, [{ text: 'Only this.', section: [] }]],
  ];
  it.each(rows)('%s', (_name, blocks, chunkSize, expected) => {
    expect(shape(chunkDocument(blocks, { chunkSize }))).toEqual(expected);
  });

  it('never makes a chunk over the size, and loses no text', () => {
    const blocks = [h(1, 'Long'), p(words(400)), list(Array.from({ length: 80 }, (_, i) => `item ${i}`)), p('机械臂无法复位怎么办。'.repeat(60))];
    const chunks = chunkDocument(blocks, { chunkSize: 300 });
    expect(chunks.every((c) => c.text.length <= 300)).toBe(true);
    const all = chunks.map((c) => c.text).join(' ');
    for (const needle of ['word0 ', 'word399.', '- item 0', '- item 79', '机械臂无法复位怎么办。']) expect(all).toContain(needle);
    expect(chunks.map((c) => c.index)).toEqual(chunks.map((_, i) => i));
    expect(new Set(chunks.map((c) => c.section.join('/')))).toEqual(new Set(['Long']));
  });

  it('a large table keeps its header in every piece', () => {
    const big = table([['model', 'payload'], ...Array.from({ length: 40 }, (_, i) => [`R-${i}`, `${i} kg`])]);
    const chunks = chunkDocument([big], { chunkSize: 120 });
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks) expect(c.text.startsWith('| model | payload |\n| --- | --- |\n')).toBe(true);
    expect(chunks.map((c) => c.text).join('\n')).toContain('| R-39 | 39 kg |');
  });

  it('refuses a size below 64', () => {
    expect(() => chunkDocument([], { chunkSize: 10 })).toThrow(RangeError);
  });
});

describe('splitLongText', () => {
  const rows: [string, string, number, string[]][] = [
    ['fits', 'Short.', 20, ['Short.']],
    ['after a sentence end', 'One two three. Four five six. Seven.', 20, ['One two three.', 'Four five six.', 'Seven.']],
    ['after a Chinese sentence end', '请检查电源。然后重启控制器。', 10, ['请检查电源。', '然后重启控制器。']],
    ['after a clause break when no sentence ends', 'alpha beta gamma delta epsilon', 12, ['alpha beta', 'gamma delta', 'epsilon']],
    ['hard cut, never inside a surrogate pair', 'ab🤖🤖🤖🤖', 4, ['ab🤖', '🤖🤖', '🤖']],
  ];
  it.each(rows)('%s', (_name, text, size, expected) => {
    expect(splitLongText(text, size)).toEqual(expected);
  });
});
