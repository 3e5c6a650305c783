import { describe, expect, it } from '@jest/globals';
import { href, parseRoute, readState, writeState } from './route';

describe('parseRoute', () => {
  it.each([
    ['', { page: 'overview', id: null, search: '' }],
    ['#/', { page: 'overview', id: null, search: '' }],
    ['#/review', { page: 'review', id: null, search: '' }],
    ['#/conversations/abc%20d', { page: 'conversations', id: 'abc d', search: '' }],
    ['#/knowledge/a%2Fb', { page: 'knowledge', id: 'a/b', search: '' }],
    ['#/jobs?status=failed&cursor=c1', { page: 'jobs', id: null, search: 'status=failed&cursor=c1' }],
    ['#/conversations/abc?from=2026-01-01', { page: 'conversations', id: 'abc', search: 'from=2026-01-01' }],
    ['#/jobs?', { page: 'jobs', id: null, search: '' }],
    // A cursor may hold a "?" once encoded; only the first one starts the state.
    ['#/jobs?cursor=a%3Fb', { page: 'jobs', id: null, search: 'cursor=a%3Fb' }],
    // An unknown page is the overview, without the unknown page's state.
    ['#/nope/1', { page: 'overview', id: null, search: '' }],
    ['#/nope?status=x', { page: 'overview', id: null, search: '' }],
  ])('%s', (hash, route) => expect(parseRoute(hash)).toEqual(route));
});

describe('href', () => {
  it('writes the page, its id and its state, and parseRoute reads them back', () => {
    expect(href('jobs')).toBe('#/jobs');
    expect(href('knowledge', 'a/b')).toBe('#/knowledge/a%2Fb');
    expect(href('jobs', null, 'status=failed')).toBe('#/jobs?status=failed');
    expect(href('conversations', 'x y', 'intent=%E9%80%80%E6%AC%BE')).toBe('#/conversations/x%20y?intent=%E9%80%80%E6%AC%BE');
    expect(parseRoute(href('conversations', 'x y', 'intent=a'))).toEqual({ page: 'conversations', id: 'x y', search: 'intent=a' });
  });
});

const STATUSES = ['', 'queued', 'running', 'succeeded', 'failed'] as const;
const LIST = { from: '2026-11-01', to: '2026-11-30', channel: '', status: '' as (typeof STATUSES)[number], cursor: [] as readonly string[] };

describe('readState', () => {
  it('is the defaults without parameters', () => {
    expect(readState('', LIST)).toEqual(LIST);
  });

  it('reads each field from its parameter and a list from all its repetitions, in order', () => {
    expect(readState('channel=bot&status=failed&cursor=c1&cursor=c2', LIST, { status: STATUSES })).toEqual({
      ...LIST,
      channel: 'bot',
      status: 'failed',
      cursor: ['c1', 'c2'],
    });
  });

  it('keeps an empty value apart from an absent one (a filter set to "all" where the default is one value)', () => {
    const review = { status: 'OPEN', cursor: [] as readonly string[] };
    expect(readState('status=', review, { status: ['OPEN', 'RESOLVED', ''] }).status).toBe('');
    expect(readState('', review, { status: ['OPEN', 'RESOLVED', ''] }).status).toBe('OPEN');
  });

  it('reads a choice that is not one of its values as the default; text is taken as typed (the API judges it)', () => {
    expect(readState('status=bogus&from=yesterday', LIST, { status: STATUSES })).toEqual({ ...LIST, from: 'yesterday' });
  });

  it('ignores parameters the page does not have', () => {
    expect(readState('other=1&__proto__=x', LIST)).toEqual(LIST);
  });
});

describe('writeState', () => {
  it('writes nothing for the defaults', () => {
    expect(writeState(LIST, LIST)).toBe('');
  });

  it('writes the fields that differ, in the order of the defaults, a list as repeated parameters', () => {
    expect(writeState({ ...LIST, cursor: ['c1', 'c2'], status: 'failed', from: '2026-10-01' }, LIST)).toBe('from=2026-10-01&status=failed&cursor=c1&cursor=c2');
  });

  it('writes an empty value when the default is not empty', () => {
    expect(writeState({ status: '' }, { status: 'OPEN' })).toBe('status=');
  });

  it('keeps the parameters of another list on the page, and replaces its own', () => {
    const library = { source: '', libraryCursor: [] as readonly string[] };
    const base = writeState({ ...LIST, status: 'failed', cursor: ['c1'] }, LIST);
    const both = writeState({ source: 'AUTO', libraryCursor: ['l1'] }, library, base);
    expect(both).toBe('status=failed&cursor=c1&source=AUTO&libraryCursor=l1');
    expect(writeState({ ...LIST, status: '' }, LIST, both)).toBe('source=AUTO&libraryCursor=l1');
    expect(readState(both, library)).toEqual({ source: 'AUTO', libraryCursor: ['l1'] });
    expect(readState(both, LIST, { status: STATUSES })).toEqual({ ...LIST, status: 'failed', cursor: ['c1'] });
  });

  it.each([
    { ...LIST, channel: 'a b&c=d#e?f' },
    { ...LIST, channel: '退款 / 发票', cursor: ['eyJpZCI6IjEyMyJ9', 'a+b/c=='] },
    { ...LIST, from: '', to: '' },
    { ...LIST, status: 'running' as const, cursor: ['only'] },
  ])('round-trips through readState and a URL: %p', (state) => {
    const search = writeState(state, LIST);
    const route = parseRoute(href('jobs', null, search));
    expect(readState(route.search, LIST, { status: STATUSES })).toEqual(state);
  });
});
