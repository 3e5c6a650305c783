import { describe, expect, it } from '@jest/globals';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type { AppConfig } from '@arbiter/config';
import type { DataSource } from 'typeorm';
import { Database } from './database.js';
import { PreparedStatementNamer, preparedStatementName, preparingPool } from './prepared-statements.js';

const policy = { minUses: 3, maxPerConnection: 2, maxCountedTexts: 4 };
const none = new Set<string>();

describe('PreparedStatementNamer', () => {
  it.each([
    ['first use', 1, 'SELECT $1', 1, null],
    ['second use', 2, 'SELECT $1', 1, null],
    ['third use: named', 3, 'SELECT $1', 1, preparedStatementName('SELECT $1')],
    ['fourth use: the same name', 4, 'SELECT $1', 1, preparedStatementName('SELECT $1')],
    ['no parameters, however often', 5, 'BEGIN', 0, null],
  ])('%s', (_label, uses, text, parameters, expected) => {
    const namer = new PreparedStatementNamer(policy);
    let name: string | null = null;
    for (let i = 0; i < uses; i++) name = namer.nameFor(text, parameters, none);
    expect(name).toBe(expected);
  });

  it('names a text by a hash of it: the same on every connection, distinct for distinct texts, a valid identifier', () => {
    const a = preparedStatementName('SELECT $1');
    expect(a).toBe(preparedStatementName('SELECT $1'));
    expect(a).not.toBe(preparedStatementName('SELECT $1 '));
    expect(a).toMatch(/^a_[0-9a-f]{30}$/);
  });

  it('gives a connection at most maxPerConnection names; one it holds keeps working', () => {
    const namer = new PreparedStatementNamer(policy);
    const held = new Set<string>();
    for (const text of ['A $1', 'B $1', 'C $1'])
      for (let i = 0; i < 3; i++) {
        const name = namer.nameFor(text, 1, held);
        if (name) held.add(name);
      }
    expect([...held]).toEqual([preparedStatementName('A $1'), preparedStatementName('B $1')]);
    expect(namer.nameFor('C $1', 1, held)).toBeNull();
    expect(namer.nameFor('A $1', 1, held)).toBe(preparedStatementName('A $1'));
    // Another connection with room gets the name of the text the full one could not take.
    expect(namer.nameFor('C $1', 1, new Set())).toBe(preparedStatementName('C $1'));
  });

  it('bounds its memory: counting starts over past maxCountedTexts, and no more than that many texts get names', () => {
    const namer = new PreparedStatementNamer(policy);
    for (const text of ['A $1', 'B $1', 'C $1', 'D $1']) namer.nameFor(text, 1, none);
    namer.nameFor('A $1', 1, none);
    // A fifth text cleared the counts: 'A' needs three uses again.
    namer.nameFor('E $1', 1, none);
    expect(namer.nameFor('A $1', 1, none)).toBeNull();
    const many = new PreparedStatementNamer({ ...policy, minUses: 1 });
    const names = ['A', 'B', 'C', 'D', 'E', 'F'].map((t) => many.nameFor(`${t} $1`, 1, none));
    expect(names.filter(Boolean)).toHaveLength(4);
  });
});

describe('preparingPool', () => {
  /** A pg client double that records what each query call received. */
  const fakePool = () => {
    const calls: unknown[][] = [];
    const released: unknown[] = [];
    const client = {
      query: (...args: unknown[]) => {
        calls.push(args);
        return Promise.resolve({ rows: [], command: 'SELECT', rowCount: 0 });
      },
      release: (destroy?: boolean) => released.push(destroy),
    } as unknown as PostgresPoolClient;
    const pool: PostgresPool = { connect: async () => client, end: async () => undefined };
    return { pool, calls, released };
  };

  it('runs a repeated statement with parameters under its name; others, cursors and release pass through unchanged', async () => {
    const { pool, calls, released } = fakePool();
    const wrapped = preparingPool(pool, new PreparedStatementNamer(policy));
    const client = await wrapped.connect();
    expect(await wrapped.connect()).toBe(client);
    for (let i = 0; i < 3; i++) await client.query('SELECT $1', [i]);
    await client.query('begin', []);
    const cursor = { submit: () => undefined };
    (client.query as (c: unknown) => unknown)(cursor);
    client.release(true);
    expect(calls).toEqual([
      ['SELECT $1', [0]],
      ['SELECT $1', [1]],
      [{ name: preparedStatementName('SELECT $1'), text: 'SELECT $1', values: [2] }],
      ['begin', []],
      [cursor, undefined],
    ]);
    expect(released).toEqual([true]);
  });
});

describe('Database and DB_PREPARED_STATEMENTS', () => {
  const run = async (preparedStatements: boolean) => {
    const calls: unknown[][] = [];
    const client = {
      query: (...args: unknown[]) => {
        calls.push(args);
        return Promise.resolve({ rows: [], command: 'SELECT', rowCount: 0 });
      },
      release: () => undefined,
    };
    const pool = { connect: async () => client, end: async () => undefined, on: () => pool };
    const dataSource = { driver: { master: pool } } as unknown as DataSource;
    const database = new Database(dataSource, { database: { preparedStatements } } as unknown as AppConfig);
    for (let i = 0; i < 4; i++) await database.db.selectNoFrom((eb) => eb.val(i).as('n')).execute();
    return calls.map((c) => (typeof c[0] === 'string' ? 'unnamed' : 'named'));
  };

  it.each([
    [true, ['unnamed', 'unnamed', 'named', 'named']],
    [false, ['unnamed', 'unnamed', 'unnamed', 'unnamed']],
  ])('with %s runs the repeated statement %j', async (setting, expected) => {
    expect(await run(setting)).toEqual(expected);
  });
});
