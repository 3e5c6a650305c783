import { describe, expect, it } from '@jest/globals';
import { isDatabaseUnavailable, isTransientConflict } from './database-errors.js';

const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

describe('isDatabaseUnavailable', () => {
  it.each([
    ['connection refused', refused, true],
    ['pool wait exceeded', new Error('timeout exceeded when trying to connect'), true],
    ['connect timeout', new Error('Connection terminated due to connection timeout'), true],
    ['server restarting', Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }), true],
    ['statement timeout', Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }), true],
    ['happy-eyeballs AggregateError', new AggregateError([refused, refused], ''), true],
    ['wrapped by TypeORM', { message: 'query failed', driverError: refused }, true],
    ['host not found', Object.assign(new Error('getaddrinfo ENOTFOUND db'), { code: 'ENOTFOUND' }), true],
    ['database dropped for a restore', Object.assign(new Error('database "arbiter" does not exist'), { code: '3D000' }), true],
    ['tables not restored yet', { message: 'relation "api_key" does not exist', driverError: { code: '42P01' } }, true],
    ['a unique violation', Object.assign(new Error('duplicate key value'), { code: '23505' }), false],
    ['a user cancel', Object.assign(new Error('canceling statement due to user request'), { code: '57014' }), false],
    ['not an error', 'ECONNREFUSED', false],
  ])('%s → %s', (_name, error, expected) => {
    expect(isDatabaseUnavailable(error)).toBe(expected);
  });
});

describe('isTransientConflict', () => {
  it.each([
    ['a deadlock', Object.assign(new Error('deadlock detected'), { code: '40P01' }), true],
    ['a serialization failure', Object.assign(new Error('could not serialize access'), { code: '40001' }), true],
    ['wrapped by TypeORM', { message: 'query failed', driverError: { code: '40P01', message: 'x' } }, true],
    ['Citus: a shard moved underneath the statement', Object.assign(new Error('could not find valid entry for shard 102345'), { code: 'XX000' }), true],
    ['a unique violation', Object.assign(new Error('duplicate key value'), { code: '23505' }), false],
    ['an outage is not a conflict', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), false],
    ['not an error', '40P01', false],
  ])('%s → %s', (_name, error, expected) => {
    expect(isTransientConflict(error)).toBe(expected);
  });
});
