import { describe, expect, it } from '@jest/globals';
import { attachmentHeader } from './knowledge-files.controller.js';
import type { StoredFileItem } from './knowledge-files.repository.js';
import { fileView } from './knowledge-files.service.js';

const item = (over: Partial<StoredFileItem>): StoredFileItem => ({
  seq: 0,
  fileName: 'a.pdf',
  status: null,
  documentId: null,
  error: null,
  detail: null,
  mediaType: 'application/pdf',
  ...over,
});
const detail = { mediaType: 'application/pdf', pageCount: 3, documents: 1, chunks: 4, embeddedChunks: 4, warnings: [] };

describe('fileView: what an upload says of each file', () => {
  it.each([
    { what: 'stored, not read yet', input: item({}), expected: { fileName: 'a.pdf', mediaType: 'application/pdf', status: 'queued' } },
    {
      what: 'refused at the door (no type known)',
      input: item({ status: 'failed', mediaType: null, error: { code: 'EMPTY_FILE', message: 'The file is empty.' } }),
      expected: { fileName: 'a.pdf', mediaType: null, status: 'refused', error: { code: 'EMPTY_FILE', message: 'The file is empty.' } },
    },
    {
      what: 'failed in the job',
      input: item({ status: 'failed', error: { code: 'PDF_ENCRYPTED', message: 'm' } }),
      expected: { fileName: 'a.pdf', mediaType: 'application/pdf', status: 'failed', error: { code: 'PDF_ENCRYPTED', message: 'm' } },
    },
    {
      what: 'written',
      input: item({ status: 'created', documentId: 'd1', detail }),
      expected: { fileName: 'a.pdf', mediaType: 'application/pdf', status: 'created', documentId: 'd1' },
    },
    {
      what: 'unchanged',
      input: item({ status: 'unchanged', documentId: 'd1' }),
      expected: { fileName: 'a.pdf', mediaType: 'application/pdf', status: 'unchanged', documentId: 'd1' },
    },
  ])('$what', ({ input, expected }) => expect(fileView(input)).toEqual(expected));
});

describe('attachmentHeader', () => {
  it.each([
    ['manual.pdf', `attachment; filename="manual.pdf"; filename*=UTF-8''manual.pdf`],
    ['说明书 v2.pdf', `attachment; filename="___ v2.pdf"; filename*=UTF-8''%E8%AF%B4%E6%98%8E%E4%B9%A6%20v2.pdf`],
    ['a"b\\c.txt', `attachment; filename="a_b_c.txt"; filename*=UTF-8''a%22b%5Cc.txt`],
  ])('%s', (name, header) => expect(attachmentHeader(name)).toBe(header));
});
