import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { ProtocolQueryQueue } from './protocol-query-queue.js';

export interface EmbeddedPostgres {
  url: string;
  dataDir: string;
  close(): Promise<void>;
}

/**
 * Real PostgreSQL (PGlite, WASM) with pgvector, persisted in `dataDir`, served on a loopback port
 * so the app talks to it with the same `pg` driver and SQL as in production. One data directory
 * belongs to one process.
 */
export async function startEmbeddedPostgres(dataDir: string, maxConnections: number): Promise<EmbeddedPostgres> {
  mkdirSync(dataDir, { recursive: true });
  const db = await PGlite.create({ dataDir, extensions: { vector } });
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections });
  // The stock queue interleaves connections' protocol cycles; see ProtocolQueryQueue.
  (server as unknown as { queryQueue: ProtocolQueryQueue }).queryQueue = new ProtocolQueryQueue(db);
  try {
    await server.start();
  } catch (error) {
    await db.close();
    throw new Error(`Could not start the embedded database: ${String(error)}`, { cause: error });
  }
  const port = Number(server.getServerConn().split(':').pop());
  let closed = false;
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    dataDir,
    close: async () => {
      if (closed) return;
      closed = true;
      await server.stop();
      await db.close();
    },
  };
}
