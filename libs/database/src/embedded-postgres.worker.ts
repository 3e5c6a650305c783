import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { ProtocolQueryQueue } from './protocol-query-queue.js';
import { describeEmbeddedStartError } from './embedded-start-error.js';

/** What the main thread passes to the worker (see embedded-postgres.ts). */
export interface EmbeddedWorkerData {
  dataDir: string;
  socketPath: string;
  maxConnections: number;
}

/** Worker → main thread. */
export type EmbeddedWorkerMessage = { type: 'ready' } | { type: 'failed'; message: string } | { type: 'closed' };

/**
 * The embedded database's own thread: PGlite executes every statement synchronously, so it runs
 * here, with its socket server and protocol queue, and a long statement stalls only this thread,
 * never the API's event loop. The main thread talks to it over the Unix socket like any client.
 */
async function main(port: NonNullable<typeof parentPort>, data: EmbeddedWorkerData): Promise<void> {
  const send = (message: EmbeddedWorkerMessage) => port.postMessage(message);
  let db: PGlite | undefined;
  let server: PGLiteSocketServer | undefined;
  try {
    db = await PGlite.create({ dataDir: data.dataDir, extensions: { vector } });
    server = new PGLiteSocketServer({ db, path: data.socketPath, maxConnections: data.maxConnections });
    // The stock queue interleaves connections' protocol cycles; see ProtocolQueryQueue.
    (server as unknown as { queryQueue: ProtocolQueryQueue }).queryQueue = new ProtocolQueryQueue(db);
    await server.start();
  } catch (error) {
    await db?.close().catch(() => undefined);
    send({ type: 'failed', message: describeEmbeddedStartError(error) });
    port.close();
    return;
  }
  const started = { db, server };
  port.on('message', (message: { type: 'close' }) => {
    if (message.type !== 'close') return;
    void (async () => {
      await started.server.stop();
      await started.db.close();
      send({ type: 'closed' });
      port.close();
    })();
  });
  send({ type: 'ready' });
}

if (parentPort) void main(parentPort, workerData as EmbeddedWorkerData);
