import { describe, expect, it } from '@jest/globals';
import { DEFAULT_RETRIEVAL_NORMALIZATION } from '../relevance.js';
import { DEFAULT_CALIBRATION } from './default-calibration.js';
import { DEFAULT_FUSION } from './fusion-settings.js';
import { assembleCandidates, candidateKey, type HitChunk, type HybridInput } from './hybrid.js';

/** A chunk of a JSON document (no location) or of a file's section. */
const json = (documentId: string, distance: number, content = 'text'): HitChunk => ({
  documentId,
  filePath: `${documentId}.md`,
  title: documentId,
  domain: 'd',
  content,
  distance,
});
const file = (documentId: string, section: string[] | null, distance: number, page: number | null = null): HitChunk => ({
  documentId,
  filePath: `${documentId}.pdf`,
  title: documentId,
  domain: 'd',
  content: `${section?.join(' / ') ?? 'no heading'} text`,
  distance,
  fileName: `${documentId}.pdf`,
  page,
  pageEnd: page,
  section,
});

const input = (vector: HitChunk[], lexical: (HitChunk & { score: number })[] = [], exact: HitChunk[] = []): HybridInput => ({
  vector,
  lexical,
  exact,
  queryTerms: ['text'],
  idf: { text: 1 },
  chunkCount: 100,
  fusion: DEFAULT_FUSION,
  calibration: DEFAULT_CALIBRATION,
  normalization: DEFAULT_RETRIEVAL_NORMALIZATION,
});

describe('candidateKey: one candidate per document, per section for documents made from files (docs/retrieval.md "Sections of files")', () => {
  it.each([
    { name: 'JSON document: its id', hit: json('a', 0.1), key: 'a' },
    { name: 'JSON document with a null fileName: its id', hit: { ...json('a', 0.1), fileName: null, section: ['x'] }, key: 'a' },
    { name: 'file section: id and heading path', hit: file('m', ['1', '1.4'], 0.1), key: 'm\u0000["1","1.4"]' },
    { name: 'file chunk without heading: id and the empty path', hit: file('m', null, 0.1), key: 'm\u0000[]' },
  ])('$name', ({ hit, key }) => {
    expect(candidateKey(hit)).toBe(key);
  });
});

describe('assembleCandidates groups chunks by (document, section) for files, by document otherwise', () => {
  const table: {
    name: string;
    vector: HitChunk[];
    lexical?: (HitChunk & { score: number })[];
    expected: { documentId: string; section: string[] | null }[];
  }[] = [
    {
      name: 'a JSON document with three chunks: one candidate',
      vector: [json('a', 0.2), json('a', 0.3), json('a', 0.4)],
      expected: [{ documentId: 'a', section: null }],
    },
    {
      name: 'a manual with three matching sections: three candidates',
      vector: [file('m', ['1', '1.1'], 0.2), file('m', ['1', '1.2'], 0.3), file('m', ['2'], 0.4)],
      expected: [
        { documentId: 'm', section: ['1', '1.1'] },
        { documentId: 'm', section: ['1', '1.2'] },
        { documentId: 'm', section: ['2'] },
      ],
    },
    {
      name: 'two chunks of one section: one candidate, the nearer chunk shown',
      vector: [file('m', ['1'], 0.2, 3), file('m', ['1'], 0.3, 4)],
      expected: [{ documentId: 'm', section: ['1'] }],
    },
    {
      name: 'JSON documents and a manual side by side',
      vector: [json('a', 0.2), file('m', ['1'], 0.25), json('a', 0.3), file('m', ['2'], 0.35), json('b', 0.4)],
      expected: [
        { documentId: 'a', section: null },
        { documentId: 'm', section: ['1'] },
        { documentId: 'm', section: ['2'] },
        { documentId: 'b', section: null },
      ],
    },
  ];
  it.each(table)('$name', ({ vector, lexical, expected }) => {
    const got = assembleCandidates(input(vector, lexical ?? []));
    expect(got.map((c) => ({ documentId: c.documentId, section: c.section }))).toEqual(expect.arrayContaining(expected));
    expect(got).toHaveLength(expected.length);
  });

  it('a candidate carries its chunk’s location; JSON documents carry nulls', () => {
    const got = assembleCandidates(input([file('m', ['1 Start', '1.4.7 Setting a default editor'], 0.2, 48), json('a', 0.3)]));
    const manual = got.find((c) => c.documentId === 'm')!;
    expect({ fileName: manual.fileName, page: manual.page, pageEnd: manual.pageEnd, section: manual.section, content: manual.content }).toEqual({
      fileName: 'm.pdf',
      page: 48,
      pageEnd: 48,
      section: ['1 Start', '1.4.7 Setting a default editor'],
      content: '1 Start / 1.4.7 Setting a default editor text',
    });
    const doc = got.find((c) => c.documentId === 'a')!;
    expect({ fileName: doc.fileName, page: doc.page, pageEnd: doc.pageEnd, section: doc.section }).toEqual({
      fileName: null,
      page: null,
      pageEnd: null,
      section: null,
    });
  });

  it('matches count the lexical chunks of the candidate: per section for a file, per document for JSON', () => {
    const lexical = [
      { ...file('m', ['1'], 0.2), score: 3 },
      { ...file('m', ['1'], 0.25), score: 2.5 },
      { ...file('m', ['2'], 0.3), score: 2 },
      { ...json('a', 0.3), score: 1.5 },
      { ...json('a', 0.35), score: 1 },
    ];
    const got = assembleCandidates(input([], lexical));
    const matches = Object.fromEntries(got.map((c) => [candidateKey(c), c.matches]));
    expect(matches).toEqual({ 'm\u0000["1"]': 2, 'm\u0000["2"]': 1, a: 2 });
  });

  it('an exact (L0) hit of a file is its document’s: every section of it is L0', () => {
    const got = assembleCandidates(input([file('m', ['1'], 0.2), file('m', ['2'], 0.3), json('a', 0.25)], [], [file('m', ['1'], 0.2)]));
    expect(Object.fromEntries(got.map((c) => [candidateKey(c), c.source]))).toEqual({ 'm\u0000["1"]': 'L0', 'm\u0000["2"]': 'L0', a: 'L1' });
  });

  it('JSON documents rank exactly as before: the result equals the one without location fields', () => {
    const plain = [json('a', 0.2), json('b', 0.25), json('a', 0.3), json('c', 0.5)];
    const located = plain.map((h) => ({ ...h, fileName: null, page: null, pageEnd: null, section: null }));
    const strip = (cs: ReturnType<typeof assembleCandidates>) => cs.map(({ fileName: _f, page: _p, pageEnd: _e, section: _s, ...rest }) => rest);
    expect(strip(assembleCandidates(input(located)))).toEqual(strip(assembleCandidates(input(plain))));
    expect(assembleCandidates(input(plain)).map((c) => c.documentId)).toEqual(['a', 'b', 'c']);
  });
});

describe('in the hashing space a file’s sections follow their lexical evidence (docs/retrieval.md "Sections of files")', () => {
  // The vector list's first section shares no term with the question; the BM25 list found two other sections.
  const vectorOnly = { ...file('m', ['9 Backup'], 1.1, 217), content: 'backup tools' };
  const lexical = [
    { ...file('m', ['1', '1.1 Consoles'], 1.2, 30), score: 1 },
    { ...file('m', ['1', '1.6 Virtual consoles'], 1.25, 31), score: 0.3 },
  ];
  const vector = [vectorOnly, lexical[0], lexical[1]];
  // A second, rarer question term no chunk has: the lexical evidence is thin, as with a paraphrased question.
  const manualInput = (hashedVectors?: boolean): HybridInput => ({
    ...input(vector, lexical),
    queryTerms: ['text', 'rare'],
    idf: { text: 1, rare: 3 },
    ...(hashedVectors === undefined ? {} : { hashedVectors }),
  });
  const sections = (cs: ReturnType<typeof assembleCandidates>) => cs.map((c) => c.section?.at(-1));

  it('the ranking model alone puts the vector list’s first section before the lexical runner-up', () => {
    expect(sections(assembleCandidates(manualInput()))).toEqual(['1.1 Consoles', '9 Backup', '1.6 Virtual consoles']);
    expect(sections(assembleCandidates(manualInput(false)))).toEqual(['1.1 Consoles', '9 Backup', '1.6 Virtual consoles']);
  });

  it('with hashed vectors the sections are ordered by lexical share, the vector-only one last', () => {
    expect(sections(assembleCandidates(manualInput(true)))).toEqual(['1.1 Consoles', '1.6 Virtual consoles', '9 Backup']);
  });

  it('a result is never graded above one ranked before it', () => {
    const got = assembleCandidates(manualInput(true));
    expect(got[1].probability).toBeGreaterThan(0);
    for (let i = 1; i < got.length; i++) expect(got[i].probability).toBeLessThanOrEqual(got[i - 1].probability);
  });

  it('JSON documents are not reordered by it', () => {
    const plain = [json('a', 0.2), json('b', 0.25), json('c', 0.5)];
    const lexicalPlain = [{ ...json('c', 0.5), score: 3 }];
    expect(assembleCandidates({ ...input(plain, lexicalPlain), hashedVectors: true }).map((c) => c.documentId)).toEqual(
      assembleCandidates(input(plain, lexicalPlain)).map((c) => c.documentId),
    );
  });
});
