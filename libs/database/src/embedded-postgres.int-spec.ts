import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded-postgres.js';

describe('embedded PostgreSQL under concurrent pooled connections', () => {
  let dir: string;
  let embedded: EmbeddedPostgres;
  let pool: pg.Pool;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'arbiter-embedded-'));
    embedded = await startEmbeddedPostgres(dir, 12);
    pool = new pg.Pool({ connectionString: embedded.url, max: 8 });
    await pool.query('CREATE TABLE counter (id int PRIMARY KEY, n int NOT NULL)');
    await pool.query('INSERT INTO counter VALUES (1, 0)');
  });
  afterAll(async () => {
    await pool.end();
    await embedded.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps every parameterised query and transaction intact when connections interleave', async () => {
    const big = 'x'.repeat(150_000); // spans several TCP reads, the case that used to interleave
    const work = Array.from({ length: 120 }, async (_, i) => {
      switch (i % 3) {
        case 0: {
          // Two statements with the same parameter shape: a Bind landing on the other's Parse would show.
          const r = await pool.query<{ v: string }>('SELECT $1::text || $2::text AS v', [`a${i}`, big.slice(0, 1000 + i)]);
          return r.rows[0]!.v === `a${i}${big.slice(0, 1000 + i)}`;
        }
        case 1: {
          const r = await pool.query<{ len: number; tag: number }>('SELECT length($1::text) AS len, $2::int AS tag', [big, i]);
          return r.rows[0]!.len === big.length && r.rows[0]!.tag === i;
        }
        default: {
          const client = await pool.connect();
          try {
            await client.query('BEGIN');
            await client.query('UPDATE counter SET n = n + $1 WHERE id = 1', [1]);
            const r = await client.query<{ tag: number }>('SELECT $1::int AS tag', [i]);
            await client.query('COMMIT');
            return r.rows[0]!.tag === i;
          } finally {
            client.release();
          }
        }
      }
    });
    const results = await Promise.all(work);
    expect(results.filter((ok) => !ok)).toEqual([]);
    const { rows } = await pool.query<{ n: number }>('SELECT n FROM counter WHERE id = 1');
    expect(rows[0]!.n).toBe(40);
  });

  it('rolls back a transaction whose connection dies and keeps serving the others', async () => {
    const doomed = new pg.Client({ connectionString: embedded.url });
    doomed.on('error', () => undefined); // its socket is destroyed on purpose below
    await doomed.connect();
    await doomed.query('BEGIN');
    await doomed.query('UPDATE counter SET n = -1 WHERE id = 1');
    const pending = pool.query<{ n: number }>('SELECT n FROM counter WHERE id = 1');
    (doomed as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
    const { rows } = await pending;
    expect(rows[0]!.n).toBe(40);
  });
});
