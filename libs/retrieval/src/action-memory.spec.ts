import { describe, expect, it } from '@jest/globals';
import {
  applyMarks,
  candidateMemoryKey,
  decideRetrieval,
  EMPTY_SESSION_MEMORY,
  lookupDomain,
  memoryKey,
  sectionKey,
  type RetrievalCandidate,
  type SessionMemoryState,
} from './action-memory.js';
import type { RelevanceLevel } from './relevance.js';

const l0 = (filePath: string, domain: string): RetrievalCandidate => ({ filePath, domain, source: 'L0' });
const l1 = (filePath: string, domain: string): RetrievalCandidate => ({ filePath, domain, source: 'L1' });
const mem = (docs: string[], domains: [string, boolean][]): SessionMemoryState => ({
  docs: new Set(docs),
  domains: new Map(domains.map(([d, strong]) => [d, { strong }])),
});

describe('lookupDomain', () => {
  it.each([
    ['first L0 match wins over a better L1', [l1('x.md', 'b'), l0('a.md', 'a'), l0('c.md', 'c')], 'a'],
    ['top L1 when no L0', [l1('x.md', 'b'), l1('y.md', 'c')], 'b'],
    ['none', [], null],
  ])('%s', (_n, candidates, expected) => {
    expect(lookupDomain(candidates)).toBe(expected);
  });
});

describe('decideRetrieval (docs/spec/retrieval.md)', () => {
  const table: {
    name: string;
    candidates: RetrievalCandidate[];
    level: RelevanceLevel;
    memory: SessionMemoryState;
    topK?: number;
    results: string[];
    dedupReason: 'doc_retrieved' | 'domain_retrieved' | null;
    domain: string | null;
    domains: string[];
  }[] = [
    {
      name: 'fresh session: returns topK, marks them',
      candidates: [l0('arm/reset.md', 'arm'), l1('arm/power.md', 'arm'), l1('arm/led.md', 'arm')],
      level: 'PRECISE',
      memory: EMPTY_SESSION_MEMORY,
      topK: 2,
      results: ['arm/reset.md', 'arm/power.md'],
      dedupReason: null,
      domain: 'arm',
      domains: ['arm'],
    },
    {
      name: 'already returned documents are skipped, later candidates fill in',
      candidates: [l1('a.md', 'arm'), l1('b.md', 'arm'), l1('c.md', 'arm')],
      level: 'HIGHLY_RELEVANT',
      memory: mem(['a.md'], [['arm', true]]),
      topK: 2,
      results: ['b.md', 'c.md'],
      dedupReason: null,
      domain: 'arm',
      domains: ['arm'],
    },
    {
      name: 'nothing new left → doc_retrieved',
      candidates: [l1('a.md', 'arm'), l1('b.md', 'arm')],
      level: 'HIGHLY_RELEVANT',
      memory: mem(['a.md', 'b.md'], [['arm', true]]),
      results: [],
      dedupReason: 'doc_retrieved',
      domain: 'arm',
      domains: ['arm'],
    },
    {
      name: 'REFERENCE lookup in a domain retrieved at a strong level → domain_retrieved (even with new docs)',
      candidates: [l1('new.md', 'arm')],
      level: 'REFERENCE',
      memory: mem(['a.md'], [['arm', true]]),
      results: [],
      dedupReason: 'domain_retrieved',
      domain: 'arm',
      domains: ['arm'],
    },
    {
      name: 'REFERENCE lookup in a domain retrieved only at REFERENCE → not withheld',
      candidates: [l1('new.md', 'arm')],
      level: 'REFERENCE',
      memory: mem(['a.md'], [['arm', false]]),
      results: ['new.md'],
      dedupReason: null,
      domain: 'arm',
      domains: ['arm'],
    },
    {
      name: 'domain check precedes doc check',
      candidates: [l1('a.md', 'arm')],
      level: 'REFERENCE',
      memory: mem(['a.md'], [['arm', true]]),
      results: [],
      dedupReason: 'domain_retrieved',
      domain: 'arm',
      domains: ['arm'],
    },
    {
      name: 'strong lookup in an already strong domain is not withheld',
      candidates: [l0('b.md', 'arm')],
      level: 'PRECISE',
      memory: mem(['a.md'], [['arm', true]]),
      results: ['b.md'],
      dedupReason: null,
      domain: 'arm',
      domains: ['arm'],
    },
    {
      name: 'REFERENCE lookup whose domain is another one → allowed, domain list grows',
      candidates: [l1('p.md', 'pay'), l1('a.md', 'arm'), l1('q.md', 'arm')],
      level: 'REFERENCE',
      memory: mem(['a.md'], [['arm', true]]),
      results: ['p.md', 'q.md'],
      dedupReason: null,
      domain: 'pay',
      domains: ['arm', 'pay'],
    },
    {
      name: 'no candidates → no dedup reason, empty results',
      candidates: [],
      level: 'REFERENCE',
      memory: mem(['a.md'], [['arm', true]]),
      results: [],
      dedupReason: null,
      domain: null,
      domains: ['arm'],
    },
    {
      name: 'duplicate candidates of one document are collapsed',
      candidates: [l0('a.md', 'arm'), l1('a.md', 'arm'), l1('b.md', 'arm')],
      level: 'PRECISE',
      memory: EMPTY_SESSION_MEMORY,
      results: ['a.md', 'b.md'],
      dedupReason: null,
      domain: 'arm',
      domains: ['arm'],
    },
  ];

  it.each(table)('$name', (row) => {
    const decision = decideRetrieval({ candidates: row.candidates, relevanceLevel: row.level, memory: row.memory, topK: row.topK ?? 5 });
    expect(decision.results.map((r) => r.filePath)).toEqual(row.results);
    expect(decision.dedupReason).toBe(row.dedupReason);
    expect(decision.domain).toBe(row.domain);
    expect(decision.retrievedDomainsThisSession).toEqual(row.domains);
    expect(decision.marks.map((m) => m.filePath)).toEqual(row.results);
  });

  it('marks every returned document under the lookup domain at the lookup level (seed T4)', () => {
    const d = decideRetrieval({ candidates: [l0('a.md', 'arm'), l1('p.md', 'pay')], relevanceLevel: 'PRECISE', memory: EMPTY_SESSION_MEMORY, topK: 5 });
    expect(d.marks).toEqual([
      { domain: 'arm', filePath: 'a.md', sectionKey: '', level: 'PRECISE' },
      { domain: 'arm', filePath: 'p.md', sectionKey: '', level: 'PRECISE' },
    ]);
    expect(d.retrievedDomainsThisSession).toEqual(['arm']);
    const state = applyMarks(EMPTY_SESSION_MEMORY, d.marks);
    expect([...state.docs]).toEqual(['a.md', 'p.md']);
    expect([...state.domains]).toEqual([['arm', { strong: true }]]);
    // p.md is now retrieved whatever domain a later lookup resolves to
    const later = decideRetrieval({ candidates: [l1('p.md', 'pay')], relevanceLevel: 'HIGHLY_RELEVANT', memory: state, topK: 5 });
    expect(later.dedupReason).toBe('doc_retrieved');
  });

  it('a REFERENCE lookup records its domain as weakly retrieved', () => {
    const d = decideRetrieval({ candidates: [l1('x.md', 'misc')], relevanceLevel: 'REFERENCE', memory: EMPTY_SESSION_MEMORY, topK: 5 });
    expect([...applyMarks(EMPTY_SESSION_MEMORY, d.marks).domains]).toEqual([['misc', { strong: false }]]);
  });

  it('a session walk-through: precise → repeat → reference in same domain', () => {
    let state: SessionMemoryState = EMPTY_SESSION_MEMORY;
    const first = decideRetrieval({ candidates: [l0('arm/reset.md', 'arm')], relevanceLevel: 'PRECISE', memory: state, topK: 5 });
    state = applyMarks(state, first.marks);
    const repeat = decideRetrieval({ candidates: [l0('arm/reset.md', 'arm')], relevanceLevel: 'PRECISE', memory: state, topK: 5 });
    expect(repeat.dedupReason).toBe('doc_retrieved');
    const vague = decideRetrieval({ candidates: [l1('arm/other.md', 'arm')], relevanceLevel: 'REFERENCE', memory: state, topK: 5 });
    expect(vague.dedupReason).toBe('domain_retrieved');
    expect(vague.retrievedDomainsThisSession).toEqual(['arm']);
  });
});

describe('action memory of files: keyed on (file, section) (docs/retrieval.md "Sections of files")', () => {
  const section = (filePath: string, ...path: string[]): RetrievalCandidate => ({
    filePath,
    domain: 'manuals',
    source: 'L1',
    fileName: filePath,
    section: path,
  });
  const json = (filePath: string, section: string[] | null): RetrievalCandidate => ({ filePath, domain: 'manuals', source: 'L1', fileName: null, section });

  it.each([
    ['a JSON document: its file path', json('faq/a.md', null), ''],
    ['a JSON document with a section (never set by the API): still its file path', json('faq/a.md', ['x']), ''],
    ['a file chunk without a heading: the file', { filePath: 'm.pdf', domain: 'm', source: 'L1' as const, fileName: 'm.pdf', section: null }, ''],
    ['a file chunk with an empty heading path: the file', section('m.pdf'), ''],
  ])('%s', (_name, candidate, expected) => {
    expect(sectionKey(candidate)).toBe(expected);
    expect(candidateMemoryKey(candidate)).toBe(candidate.filePath);
  });

  it('sections of one file have distinct keys, equal paths equal keys, and the key is the SHA-256 of the path', () => {
    const a = sectionKey(section('m.pdf', '1 Start', '1.4 Editors'));
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(sectionKey(section('m.pdf', '1 Start', '1.4 Editors'))).toBe(a);
    expect(sectionKey(section('m.pdf', '1 Start'))).not.toBe(a);
    // The path is the key, not its last heading: two "Notes" sections in different chapters are different.
    expect(sectionKey(section('m.pdf', '1 Start', 'Notes'))).not.toBe(sectionKey(section('m.pdf', '2 Setup', 'Notes')));
    expect(candidateMemoryKey(section('m.pdf', '1 Start'))).toBe(memoryKey('m.pdf', sectionKey(section('m.pdf', '1 Start'))));
  });

  it('one answer does not use up a whole manual: a later lookup gets the file’s other sections, not the returned one', () => {
    const editors = section('manual.pdf', '1 Start', '1.4.7 Setting a default editor');
    const fonts = section('manual.pdf', '1 Start', '1.4.8 Fonts');
    const first = decideRetrieval({ candidates: [editors, fonts], relevanceLevel: 'HIGHLY_RELEVANT', memory: EMPTY_SESSION_MEMORY, topK: 1 });
    expect(first.results).toEqual([editors]);
    expect(first.marks).toEqual([{ domain: 'manuals', filePath: 'manual.pdf', sectionKey: sectionKey(editors), level: 'HIGHLY_RELEVANT' }]);
    const state = applyMarks(EMPTY_SESSION_MEMORY, first.marks);
    const second = decideRetrieval({ candidates: [editors, fonts], relevanceLevel: 'HIGHLY_RELEVANT', memory: state, topK: 5 });
    expect(second.results).toEqual([fonts]);
    expect(second.dedupReason).toBeNull();
    const third = decideRetrieval({ candidates: [editors], relevanceLevel: 'HIGHLY_RELEVANT', memory: applyMarks(state, second.marks), topK: 5 });
    expect(third.dedupReason).toBe('doc_retrieved');
  });

  it('the same section twice in the candidates is returned once', () => {
    const a = section('m.pdf', 'A');
    const d = decideRetrieval({ candidates: [a, { ...a }, section('m.pdf', 'B')], relevanceLevel: 'PRECISE', memory: EMPTY_SESSION_MEMORY, topK: 5 });
    expect(d.results.map((r) => r.section)).toEqual([['A'], ['B']]);
  });
});
