import { describe, expect, it } from '@jest/globals';
import { ProtocolQueryQueue, type ExclusiveProtocolDb } from './protocol-query-queue.js';

/** A fake backend that records the order in which protocol messages reach it. */
class FakeDb implements ExclusiveProtocolDb {
  readonly seen: string[] = [];
  inTransaction = false;
  isInTransaction(): boolean {
    return this.inTransaction;
  }
  async runExclusive<T>(fn: () => Promise<T>): Promise<T> {
    return fn();
  }
  async execProtocolRawStream(message: Uint8Array, options: { onRawData: (d: Uint8Array) => void }): Promise<void> {
    await new Promise((r) => setImmediate(r)); // let other connections enqueue meanwhile
    const label = Buffer.from(message).toString('utf8');
    this.seen.push(label);
    if (label.endsWith(':Q BEGIN')) this.inTransaction = true;
    if (label.endsWith(':Q COMMIT')) this.inTransaction = false;
    options.onRawData(new Uint8Array([1]));
  }
  async exec(): Promise<void> {
    this.inTransaction = false;
  }
}

/** Messages are labelled "<type><conn>..." so the first byte is the protocol message type. */
const msg = (type: string, conn: number, text = '') => new Uint8Array(Buffer.from(`${type}${conn}${text ? `:${type} ${text}` : ''}`));

describe('ProtocolQueryQueue', () => {
  it('keeps an extended-protocol cycle (Parse..Sync) of one connection together', async () => {
    const db = new FakeDb();
    const queue = new ProtocolQueryQueue(db);
    const a = (async () => {
      for (const t of ['P', 'B', 'D', 'E', 'S']) await queue.enqueue(1, msg(t, 1), () => undefined);
    })();
    const b = (async () => {
      await new Promise((r) => setImmediate(r));
      for (const t of ['P', 'B', 'E', 'S']) await queue.enqueue(2, msg(t, 2), () => undefined);
    })();
    await Promise.all([a, b]);
    expect(db.seen).toEqual(['P1', 'B1', 'D1', 'E1', 'S1', 'P2', 'B2', 'E2', 'S2']);
  });

  it('keeps a transaction of one connection together, then lets others in', async () => {
    const db = new FakeDb();
    const queue = new ProtocolQueryQueue(db);
    const tx = (async () => {
      await queue.enqueue(1, msg('Q', 1, 'BEGIN'), () => undefined);
      await new Promise((r) => setTimeout(r, 5)); // the client thinks between statements
      await queue.enqueue(1, msg('Q', 1, 'UPDATE'), () => undefined);
      await queue.enqueue(1, msg('Q', 1, 'COMMIT'), () => undefined);
    })();
    const other = (async () => {
      await new Promise((r) => setTimeout(r, 1));
      await queue.enqueue(2, msg('Q', 2, 'SELECT'), () => undefined);
    })();
    await Promise.all([tx, other]);
    expect(db.seen).toEqual(['Q1:Q BEGIN', 'Q1:Q UPDATE', 'Q1:Q COMMIT', 'Q2:Q SELECT']);
  });

  it('hands the backend on when the owning connection disconnects mid-transaction (rolled back)', async () => {
    const db = new FakeDb();
    const queue = new ProtocolQueryQueue(db);
    await queue.enqueue(1, msg('Q', 1, 'BEGIN'), () => undefined);
    const waiting = queue.enqueue(2, msg('Q', 2, 'SELECT'), () => undefined);
    await queue.clearTransactionIfNeeded(1);
    await waiting;
    expect(db.inTransaction).toBe(false);
    expect(db.seen).toEqual(['Q1:Q BEGIN', 'Q2:Q SELECT']);
  });

  it('keeps serving after a message fails', async () => {
    const db = new FakeDb();
    const original = db.execProtocolRawStream.bind(db);
    let first = true;
    db.execProtocolRawStream = async (m, o) => {
      if (first) {
        first = false;
        throw new Error('boom');
      }
      return original(m, o);
    };
    const queue = new ProtocolQueryQueue(db);
    await expect(queue.enqueue(1, msg('Q', 1, 'BAD'), () => undefined)).rejects.toThrow('boom');
    await expect(queue.enqueue(2, msg('Q', 2, 'OK'), () => undefined)).resolves.toBe(1);
  });
});
