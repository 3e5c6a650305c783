import pg from 'pg';
import { citusClusterUrl, citusTestShardCount, withDatabase } from './test-db-env.js';

interface NodeAddress {
  host: string;
  port: number;
}

function nodeUrl(node: NodeAddress, database: string): string {
  const u = new URL(citusClusterUrl());
  u.hostname = node.host;
  u.port = String(node.port);
  return withDatabase(u.toString(), database);
}

async function withClient<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

function coordinator(): NodeAddress {
  const u = new URL(citusClusterUrl());
  return { host: u.hostname, port: Number(u.port || 5432) };
}

/** The cluster's active primary workers, as its coordinator's metadata lists them. */
async function workers(): Promise<NodeAddress[]> {
  return withClient(citusClusterUrl(), async (client) => {
    const { rows } = await client.query<{ host: string; port: number }>(
      `SELECT nodename AS host, nodeport AS port FROM pg_dist_node
        WHERE groupid <> 0 AND noderole = 'primary' AND isactive ORDER BY nodeport`,
    );
    if (!rows.length) throw new Error(`TEST_DB=citus: no worker is registered at ${citusClusterUrl()} (scripts/citus/cluster.sh start)`);
    return rows;
  });
}

/**
 * A new, empty database `name` on every node of the cluster (Citus keeps its metadata per database), with the
 * citus and vector extensions, the workers registered with the coordinator, and few shards per table
 * (`shardCount`, default CITUS_TEST_SHARD_COUNT). Returns the coordinator's url; the caller migrates it. There is no template: Citus's
 * maintenance daemon keeps a connection open to every database that has the extension, and a shard lives on a
 * worker under the coordinator's metadata, so a copy would be neither possible nor consistent.
 */
export async function createCitusDatabase(name: string, shardCount = citusTestShardCount()): Promise<string> {
  const head = coordinator();
  const nodes = [head, ...(await workers())];
  await Promise.all(
    nodes.map(async (node) => {
      await withClient(nodeUrl(node, 'postgres'), (c) => c.query(`CREATE DATABASE ${name}`));
      await withClient(nodeUrl(node, name), (c) => c.query('CREATE EXTENSION citus; CREATE EXTENSION vector'));
    }),
  );
  await withClient(nodeUrl(head, name), async (c) => {
    await c.query(`ALTER DATABASE ${name} SET citus.shard_count = ${shardCount}`);
    await c.query('SELECT citus_set_coordinator_host($1, $2)', [head.host, head.port]);
    for (const worker of nodes.slice(1)) await c.query('SELECT citus_add_node($1, $2)', [worker.host, worker.port]);
  });
  return nodeUrl(head, name);
}

/** Drops `name` on every node, the coordinator first (it holds the connections to the workers' copies). */
export async function dropCitusDatabase(name: string): Promise<void> {
  const nodes = [coordinator(), ...(await workers())];
  for (const node of nodes) await withClient(nodeUrl(node, 'postgres'), (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}
