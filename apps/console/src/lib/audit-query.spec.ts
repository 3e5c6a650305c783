import { describe, expect, it } from '@jest/globals';
import { auditFileName, auditQuery, EMPTY_AUDIT_FILTER } from './audit-query';

describe('auditQuery', () => {
  it('leaves blank filters out', () => {
    expect(auditQuery(EMPTY_AUDIT_FILTER)).toEqual({});
    expect(auditQuery({ ...EMPTY_AUDIT_FILTER, action: '  ', resourceType: '' })).toEqual({});
  });

  it('turns days into local midnights, the end day inclusive (the API’s to is exclusive)', () => {
    const query = auditQuery({ ...EMPTY_AUDIT_FILTER, from: '2026-12-01', to: '2026-12-03' });
    expect(query.from).toBe(new Date(2026, 11, 1).toISOString());
    expect(query.to).toBe(new Date(2026, 11, 4).toISOString());
    // Across a month's end.
    expect(auditQuery({ ...EMPTY_AUDIT_FILTER, to: '2026-12-31' }).to).toBe(new Date(2027, 0, 1).toISOString());
  });

  it('sends names and the actor trimmed, and anything that is not a day as typed (the API names it)', () => {
    expect(auditQuery({ from: 'yesterday', to: '', resourceType: ' api_key ', action: 'revoke', actorKeyId: 'k-1' })).toEqual({
      from: 'yesterday',
      resourceType: 'api_key',
      action: 'revoke',
      actorKeyId: 'k-1',
    });
  });
});

describe('auditFileName', () => {
  it.each([
    [EMPTY_AUDIT_FILTER, 'audit-2026-12-03.csv'],
    [{ ...EMPTY_AUDIT_FILTER, from: '2026-11-01' }, 'audit-2026-11-01-2026-12-03.csv'],
    [{ ...EMPTY_AUDIT_FILTER, from: '2026-11-01', to: '2026-11-30' }, 'audit-2026-11-01-2026-11-30.csv'],
    [{ ...EMPTY_AUDIT_FILTER, to: '2026-11-30' }, 'audit-start-2026-11-30.csv'],
  ])('%p → %p', (filter, name) => expect(auditFileName(filter, '2026-12-03')).toBe(name));
});
