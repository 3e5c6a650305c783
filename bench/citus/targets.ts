/**
 * The databases `bench:citus` and its drill run on: a fresh database per run, on the one PostgreSQL
 * (BENCH_POSTGRES_URL, default 127.0.0.1:5432) or on the Citus cluster of scripts/citus/cluster.sh
 * (CITUS_DATABASE_URL, default the coordinator on 5440; the database is made on every node with the workers
 * registered, as the TEST_DB=citus suites do: docs/SCALING.md "Running on Citus").
 */
import pg from 'pg';
import { createCitusDatabase, dropCitusDatabase } from '@arbiter/testing';
import { dropDatabase, withDatabase } from '../support/bench-http.js';

export type TargetKind = 'postgres' | 'citus';

export interface Target {
  kind: TargetKind;
  database: string;
  url: string;
  drop(): Promise<void>;
}

const postgresAdminUrl = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A new empty database `name` (the first API replica migrates it). `shardCount`: shards per distributed table on Citus. */
export async function createTarget(kind: TargetKind, name: string, shardCount: number): Promise<Target> {
  if (kind === 'citus') {
    const url = await createCitusDatabase(name, shardCount);
    return { kind, database: name, url, drop: () => dropCitusDatabase(name) };
  }
  const admin = new pg.Client({ connectionString: postgresAdminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return { kind, database: name, url: withDatabase(postgresAdminUrl, name), drop: () => dropDatabase(postgresAdminUrl, name) };
}

/** Where each tenant's rows live on a cluster: the worker of the shard its id hashes to (`conversation`'s co-location group). */
export async function tenantPlacement(pool: pg.Pool, tenantIds: readonly string[]): Promise<{ tenant: string; shard: string; worker: string }[]> {
  const out: { tenant: string; shard: string; worker: string }[] = [];
  for (const tenant of tenantIds) {
    const { rows } = await pool.query<{ shard: string; worker: string }>(
      `SELECT s.shardid::text AS shard, s.nodename || ':' || s.nodeport AS worker
         FROM citus_shards s
        WHERE s.shardid = get_shard_id_for_distribution_column('conversation', $1::uuid)`,
      [tenant],
    );
    out.push({ tenant, shard: rows[0]!.shard, worker: rows[0]!.worker });
  }
  return out;
}
