import { describe, expect, it } from '@jest/globals';
import { decodeCursor, encodeCursor, exactTimestampSql, Keyset, pageRequest, toPage } from './cursor.js';

const ID = '0e5f2c1a-8d4b-4c2e-9f3a-1b2c3d4e5f60';

describe('keyset cursor', () => {
  it('round-trips the exact (microsecond) timestamp', () => {
    const c = { createdAt: '2026-11-30T10:00:00.123456Z', id: ID };
    expect(decodeCursor(encodeCursor(c))).toEqual(c);
  });

  it.each([
    ['not base64 JSON', 'zzz'],
    ['a date without a zone', Buffer.from(JSON.stringify(['2026-11-30 10:00:00.123456', ID])).toString('base64url')],
    ['free text', Buffer.from(JSON.stringify(['yesterday', ID])).toString('base64url')],
    ['a bad id', Buffer.from(JSON.stringify(['2026-11-30T10:00:00.123456Z', 'x'])).toString('base64url')],
    ['three parts', Buffer.from(JSON.stringify(['2026-11-30T10:00:00Z', ID, 1])).toString('base64url')],
  ])('rejects %s with a 400 INVALID_CURSOR', (_n, raw) => {
    expect(() => decodeCursor(raw)).toThrow(expect.objectContaining({ code: 'INVALID_CURSOR', status: 400 }));
  });

  it('pageRequest: default size, decoded position', () => {
    expect(pageRequest({})).toEqual({ limit: 50, after: null });
    expect(pageRequest({ limit: 2, cursor: encodeCursor({ createdAt: '2026-11-30T10:00:00.000001Z', id: ID }) })).toEqual({
      limit: 2,
      after: { createdAt: '2026-11-30T10:00:00.000001Z', id: ID },
    });
  });
});

describe('Keyset SQL and toPage', () => {
  const ks = new Keyset('r.created_at', 'r.id');

  it('selects the key formatted in SQL (microseconds), never via a JS Date', () => {
    expect(ks.columns).toBe(`${exactTimestampSql('r.created_at')} AS "cursorTs", r.id::text AS "cursorId"`);
    expect(exactTimestampSql('x')).toContain('.US"Z"');
  });

  it("numbers its parameters after the caller's", () => {
    const params: unknown[] = ['tenant'];
    expect(ks.where(params, null)).toBe('TRUE');
    expect(ks.where(params, { createdAt: '2026-11-30T10:00:00.123456Z', id: ID })).toBe('(r.created_at, r.id) < ($2::timestamptz, $3::uuid)');
    expect(ks.limit(params, 2)).toBe('$4');
    expect(params).toEqual(['tenant', '2026-11-30T10:00:00.123456Z', ID, 3]);
    expect(ks.orderBy).toBe('r.created_at DESC, r.id DESC');
  });

  it('builds the page from limit + 1 rows with the last kept row as cursor', () => {
    const rows = ['1', '2', '3'].map((n) => ({ cursorTs: `2026-11-30T10:00:00.12300${n}Z`, cursorId: ID, n }));
    const page = toPage(rows, 2, (r) => r.n);
    expect(page.items).toEqual(['1', '2']);
    expect(decodeCursor(page.nextCursor!)).toEqual({ createdAt: '2026-11-30T10:00:00.123002Z', id: ID });
    expect(toPage(rows.slice(0, 2), 2, (r) => r.n).nextCursor).toBeNull();
  });
});
