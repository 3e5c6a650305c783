import { describe, expect, it } from '@jest/globals';
import { parsedStatementName, ProtocolQueryQueue, type ExclusiveProtocolDb } from './protocol-query-queue.js';

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

  describe('named statements (docs/hot-paths.md "Prepared statements")', () => {
    /** A real Parse message: 'P', int32 length, name, NUL, query, NUL, int16 parameter types (0). */
    const parse = (name: string, query = 'SELECT $1::int') => {
      const body = Buffer.concat([Buffer.from(`${name}\0${query}\0`), Buffer.from([0, 0])]);
      const head = Buffer.alloc(5);
      head.write('P', 0);
      head.writeInt32BE(body.length + 4, 1);
      return new Uint8Array(Buffer.concat([head, body]));
    };
    /** A backend that answers a Parse with ParseComplete, or with an error for the names in `failing`. */
    class ParsingDb extends FakeDb {
      readonly failing = new Set<string>();
      override async execProtocolRawStream(message: Uint8Array, options: { onRawData: (d: Uint8Array) => void }): Promise<void> {
        this.seen.push(`${String.fromCharCode(message[0] ?? 0)}:${parsedStatementName(message)}`);
        const name = parsedStatementName(message);
        options.onRawData(message[0] === 0x50 ? Uint8Array.of(this.failing.has(name) ? 0x45 : 0x31, 0, 0, 0, 4) : Uint8Array.of(0x5a, 0, 0, 0, 5, 0x49));
      }
    }
    const replies = async (queue: ProtocolQueryQueue, conn: number, message: Uint8Array) => {
      const got: number[] = [];
      await queue.enqueue(conn, message, (d) => got.push(...d));
      return got;
    };

    it.each([
      ['a named Parse', parse('a_0123'), 'a_0123'],
      ['the unnamed statement', parse(''), ''],
      ['a simple query', msg('Q', 1, 'SELECT 1'), ''],
      ['a message shorter than a header', Uint8Array.of(0x50, 0, 0), ''],
    ])('reads the statement name of %s', (_label, message, name) => {
      expect(parsedStatementName(message)).toBe(name);
    });

    it('answers a Parse of a name another connection prepared itself, and passes the rest of the cycle on', async () => {
      const db = new ParsingDb();
      const queue = new ProtocolQueryQueue(db);
      expect(await replies(queue, 1, parse('a_1'))).toEqual([0x31, 0, 0, 0, 4]);
      await queue.enqueue(1, msg('S', 1), () => undefined);
      expect(await replies(queue, 2, parse('a_1'))).toEqual([0x31, 0, 0, 0, 4]);
      await queue.enqueue(2, msg('B', 2), () => undefined);
      await queue.enqueue(2, msg('S', 2), () => undefined);
      // The second Parse never reached the backend; the Bind and Sync after it did.
      expect(db.seen).toEqual(['P:a_1', 'S:', 'B:', 'S:']);
    });

    it('keeps the answered Parse and the rest of its cycle together', async () => {
      const db = new ParsingDb();
      const queue = new ProtocolQueryQueue(db);
      await replies(queue, 1, parse('a_1'));
      await queue.enqueue(1, msg('S', 1), () => undefined);
      const second = (async () => {
        await replies(queue, 2, parse('a_1'));
        await new Promise((r) => setTimeout(r, 5));
        await queue.enqueue(2, msg('B', 2), () => undefined);
        await queue.enqueue(2, msg('S', 2), () => undefined);
      })();
      const third = (async () => {
        await new Promise((r) => setTimeout(r, 1));
        await queue.enqueue(3, msg('Q', 3, 'SELECT'), () => undefined);
      })();
      await Promise.all([second, third]);
      expect(db.seen).toEqual(['P:a_1', 'S:', 'B:', 'S:', 'Q:']);
    });

    it('does not remember a name whose Parse failed, nor the unnamed statement', async () => {
      const db = new ParsingDb();
      db.failing.add('a_bad');
      const queue = new ProtocolQueryQueue(db);
      expect(await replies(queue, 1, parse('a_bad'))).toEqual([0x45, 0, 0, 0, 4]);
      await queue.enqueue(1, msg('S', 1), () => undefined);
      db.failing.clear();
      await replies(queue, 2, parse('a_bad'));
      await replies(queue, 2, parse(''));
      await queue.enqueue(2, msg('S', 2), () => undefined);
      await replies(queue, 3, parse(''));
      expect(db.seen).toEqual(['P:a_bad', 'S:', 'P:a_bad', 'P:', 'S:', 'P:']);
    });
  });
});
