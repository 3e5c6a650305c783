import { describe, expect, it } from '@jest/globals';
import { bm25Impact } from './bm25.js';
import { AVERAGE_HEADING_LENGTH, HEADING_TERM_PREFIX, headingTerm, indexChunks } from './indexing.js';
import { MAX_TERM_LENGTH } from './text-analyzer.js';

/** What the lexical index stores per chunk (docs/retrieval.md "Lexical index"): the heading twice, once as a field. */
describe('indexChunks', () => {
  const [chunk] = indexChunks('Where can I get tested?', ['testing'], ['Call your doctor before you get tested.'], 12);
  const impactOf = (term: string) => chunk.impacts[chunk.terms.indexOf(term)];

  it.each([
    // term, in the chunk's own postings (body + heading once), in the heading field
    { term: 'test', body: true, field: true }, // `tested` (title), `testing` (keyword) and `tested` (body)
    { term: 'where', body: true, field: true }, // stop words are terms in both
    { term: 'doctor', body: true, field: false },
  ])('$term: own postings $body, heading field $field', ({ term, body, field }) => {
    expect(chunk.terms.includes(term)).toBe(body);
    expect(chunk.terms.includes(`${HEADING_TERM_PREFIX}${term}`)).toBe(field);
  });

  it('scores the heading field by its own length against the average heading', () => {
    // Heading: where can i get test + test (keyword) = 6 terms; `test` twice in it.
    expect(impactOf('^test')).toBeCloseTo(bm25Impact(2, 6, AVERAGE_HEADING_LENGTH), 12);
    expect(impactOf('^where')).toBeCloseTo(bm25Impact(1, 6, AVERAGE_HEADING_LENGTH), 12);
  });

  it('counts the heading once among the chunk own terms, in its length too', () => {
    // Body: call your doctor before you get test = 7 terms; heading 6; `test` 1 + 2.
    expect(chunk.length).toBe(13);
    expect(impactOf('test')).toBeCloseTo(bm25Impact(3, 13, 12), 12);
    expect(impactOf('get')).toBeCloseTo(bm25Impact(2, 13, 12), 12);
  });

  it('leaves a heading term out of the field when the mark would not fit the term column', () => {
    const long = 'x'.repeat(MAX_TERM_LENGTH);
    expect(headingTerm(long)).toBeNull();
    expect(headingTerm('x'.repeat(MAX_TERM_LENGTH - 1))).toHaveLength(MAX_TERM_LENGTH);
    const [c] = indexChunks(long, [], ['body'], 5);
    expect(c.terms).toEqual(expect.arrayContaining([long, 'bodi']));
    expect(c.terms.every((t) => t.length <= MAX_TERM_LENGTH)).toBe(true);
  });
});
