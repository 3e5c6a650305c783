import { describe, expect, it } from '@jest/globals';
import { boundedPoolOptions, describeTarget } from './pool-options.js';

const timeouts = { connectTimeoutMs: 1234, statementTimeoutMs: 30_000, poolWaitTimeoutMs: 4321 };

describe('boundedPoolOptions', () => {
  it('bounds the pool wait, each connect and each statement', () => {
    const options = boundedPoolOptions(7, timeouts, false);
    expect(options).toMatchObject({ max: 7, connectionTimeoutMillis: 4321, statement_timeout: 30_000 });
    const Client = options.Client as new (config: object) => { connectionParameters: unknown; _connectionTimeoutMillis: number };
    expect(new Client({ connectionString: 'postgres://u@127.0.0.1:1/x', connectionTimeoutMillis: 4321 })._connectionTimeoutMillis).toBe(1234);
  });

  it('sets no statement_timeout on the embedded database (one backend shared by every connection) or when 0', () => {
    expect(boundedPoolOptions(2, timeouts, true)).not.toHaveProperty('statement_timeout');
    expect(boundedPoolOptions(2, { ...timeouts, statementTimeoutMs: 0 }, false)).not.toHaveProperty('statement_timeout');
  });
});

describe('describeTarget', () => {
  it('names host, port and database without credentials', () => {
    expect(describeTarget('postgres://arbiter:secret@db.internal:6543/arbiter')).toBe('db.internal:6543/arbiter');
    expect(describeTarget('postgres://postgres:postgres@%2Ftmp%2Fsock/postgres')).toBe('/tmp/sock/postgres');
  });
});
