/**
 * The part of PGlite the queue drives (structural, so tests can pass a fake).
 */
export interface ExclusiveProtocolDb {
  isInTransaction(): boolean;
  runExclusive<T>(fn: () => Promise<T>): Promise<T>;
  execProtocolRawStream(message: Uint8Array, options: { onRawData: (data: Uint8Array) => void }): Promise<unknown>;
  exec(sql: string): Promise<unknown>;
}

interface QueuedMessage {
  handlerId: number;
  message: Uint8Array;
  onData: (data: Uint8Array) => void;
  resolve: (bytes: number) => void;
  reject: (error: unknown) => void;
}

/** Frontend message types that end an extended-protocol cycle ('S' Sync) or are a whole cycle ('Q' Query). */
const CYCLE_END = new Set(['S'.charCodeAt(0), 'Q'.charCodeAt(0)]);
/** Extended-protocol messages that open or continue a cycle. */
const CYCLE_PART = new Set(['P', 'B', 'D', 'E', 'C', 'H', 'd', 'c', 'f'].map((c) => c.charCodeAt(0)));

const PARSE = 'P'.charCodeAt(0);
/** The backend's reply to a Parse that succeeded: '1' and its length. */
const PARSE_COMPLETE = Uint8Array.of('1'.charCodeAt(0), 0, 0, 0, 4);

/** The statement name of a Parse message ('P', int32 length, name, NUL, …): '' for the unnamed statement. */
export function parsedStatementName(message: Uint8Array): string {
  const end = message.indexOf(0, 5);
  return end > 5 ? Buffer.from(message.subarray(5, end)).toString('utf8') : '';
}

/**
 * Replacement for pglite-socket's query queue. PGlite is one backend shared by every socket
 * connection; the stock queue hands it messages first-in-first-out across connections, so one
 * connection's Parse/Bind/Execute/Sync cycle can be split by another connection's Parse of the
 * unnamed statement ("unnamed prepared statement does not exist", or a Bind of the wrong statement).
 * This queue keeps the backend with one connection from the first message of a cycle to its Sync,
 * and for the whole of a transaction, exactly as separate PostgreSQL backends would look to clients.
 */
export class ProtocolQueryQueue {
  private queue: QueuedMessage[] = [];
  private processing = false;
  /** The connection that owns the backend: mid-cycle or inside a transaction. */
  private owner: number | null = null;
  private ownerMidCycle = false;
  /**
   * Named statements the backend holds. Every connection shares the one backend, so a Parse of a name another
   * connection prepared would fail ("prepared statement already exists"); names are hashes of their text
   * (docs/hot-paths.md "Prepared statements"), so the statement is already there and the Parse is answered here.
   */
  private readonly prepared = new Set<string>();

  constructor(private readonly db: ExclusiveProtocolDb) {}

  enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    return new Promise((resolve, reject) => {
      this.queue.push({ handlerId, message, onData, resolve, reject });
      void this.processQueue();
    });
  }

  getQueueLength(): number {
    return this.queue.length;
  }

  clearQueueForHandler(handlerId: number): void {
    this.queue = this.queue.filter((item) => {
      if (item.handlerId !== handlerId) return true;
      item.reject(new Error('Handler disconnected'));
      return false;
    });
  }

  /** A connection went away: roll back what it left open and hand the backend on. */
  async clearTransactionIfNeeded(handlerId: number): Promise<void> {
    if (this.owner !== handlerId) return;
    if (this.db.isInTransaction()) await this.db.exec('ROLLBACK');
    this.owner = null;
    this.ownerMidCycle = false;
    await this.processQueue();
  }

  private next(): QueuedMessage | undefined {
    const owned = this.owner !== null && (this.ownerMidCycle || this.db.isInTransaction());
    if (!owned) {
      this.owner = null;
      return this.queue.shift();
    }
    const index = this.queue.findIndex((item) => item.handlerId === this.owner);
    // The owner has not sent its next message yet: wait for it rather than let another connection in.
    return index === -1 ? undefined : this.queue.splice(index, 1)[0];
  }

  private async processQueue(): Promise<void> {
    if (this.processing) return;
    this.processing = true;
    try {
      for (let item = this.next(); item; item = this.next()) {
        const type = item.message[0] ?? 0;
        const statement = type === PARSE ? parsedStatementName(item.message) : '';
        let bytes = 0;
        if (statement && this.prepared.has(statement)) {
          this.owner = item.handlerId;
          this.ownerMidCycle = true;
          item.onData(PARSE_COMPLETE);
          item.resolve(PARSE_COMPLETE.length);
          continue;
        }
        try {
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(item.message, {
              onRawData: (data) => {
                if (statement && bytes === 0 && data[0] === PARSE_COMPLETE[0]) this.prepared.add(statement);
                bytes += data.length;
                item.onData(data);
              },
            }),
          );
        } catch (error) {
          item.reject(error);
          continue;
        }
        this.owner = item.handlerId;
        if (CYCLE_END.has(type)) this.ownerMidCycle = false;
        else if (CYCLE_PART.has(type)) this.ownerMidCycle = true;
        item.resolve(bytes);
      }
    } finally {
      this.processing = false;
    }
  }
}
