import { describe, expect, it } from '@jest/globals';
import type { MultipartBody, MultipartFile } from '@arbiter/common';
import { checkUploadForm, DEFAULT_UPLOAD_DOMAIN, parseKeywords } from './upload-form.js';

const part = (fileName: string, fieldName = 'file'): MultipartFile => ({
  fieldName,
  fileName,
  declaredType: 'application/pdf',
  bytes: Buffer.from('x'),
  size: 1,
  tooLarge: false,
});
const body = (fields: Record<string, string>, files: MultipartFile[] = [part('a.pdf')]): MultipartBody => ({ fields, files });

describe('checkUploadForm', () => {
  it('takes the defaults: domain general, no keywords, empty metadata', () => {
    expect(checkUploadForm(body({}))).toEqual({ form: { domain: DEFAULT_UPLOAD_DOMAIN, keywords: [], metadata: {} }, files: [part('a.pdf')] });
  });

  it('reads domain, keywords and metadata', () => {
    expect(checkUploadForm(body({ domain: ' robot ', keywords: 'a, b，a ,, c', metadata: '{"model":"TP10","year":2026}' }))).toMatchObject({
      form: { domain: 'robot', keywords: ['a', 'b', 'c'], metadata: { model: 'TP10', year: 2026 } },
    });
  });

  it.each([
    { what: 'an unknown field', input: body({ owner: 'me' }), field: 'owner' },
    { what: 'a blank domain', input: body({ domain: '  ' }), field: 'domain' },
    { what: 'a domain over 100 characters', input: body({ domain: 'd'.repeat(101) }), field: 'domain' },
    { what: 'a keyword over 200 characters', input: body({ keywords: 'k'.repeat(201) }), field: 'keywords' },
    { what: 'more than 100 keywords', input: body({ keywords: Array.from({ length: 101 }, (_, i) => `k${i}`).join(',') }), field: 'keywords' },
    { what: 'metadata that is not JSON', input: body({ metadata: '{oops' }), field: 'metadata' },
    { what: 'metadata that is an array', input: body({ metadata: '[1]' }), field: 'metadata' },
    { what: 'metadata that is null', input: body({ metadata: 'null' }), field: 'metadata' },
    {
      what: 'metadata over 1,000 keys',
      input: body({ metadata: JSON.stringify(Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`k${i}`, i]))) }),
      field: 'metadata',
    },
    { what: 'metadata with a NUL byte', input: body({ metadata: '{"a":"x\\u0000"}' }), field: 'metadata.a' },
    { what: 'no file', input: body({}, []), field: 'file' },
    { what: 'a file part under another name', input: body({}, [part('a.pdf', 'attachment')]), field: 'attachment' },
    { what: 'a file without a name', input: body({}, [part('')]), field: 'file[0]' },
    { what: 'a file name over 900 characters', input: body({}, [part(`${'n'.repeat(901)}.pdf`)]), field: 'file[0]' },
    { what: 'a file name twice', input: body({}, [part('a.pdf'), part('b.pdf'), part('a.pdf')]), field: 'file[2]' },
  ])('refuses $what, naming $field', ({ input, field }) => {
    const result = checkUploadForm(input);
    expect(Array.isArray(result) ? result.map((p) => p.field) : result).toContain(field);
  });
});

describe('parseKeywords', () => {
  it.each([
    ['', []],
    ['a', ['a']],
    [' a , b ', ['a', 'b']],
    ['示教器，teach pendant,示教器', ['示教器', 'teach pendant']],
  ])('%j → %j', (raw, expected) => expect(parseKeywords(raw)).toEqual(expected));
});
