import { createHash } from 'node:crypto';

/**
 * Cooperative time slicing for CPU-bound loops on the API's thread (embedding, analysis, evaluation):
 * call `await slice.pause()` between items; it yields to the event loop (`setImmediate`, so I/O and
 * timers run) once `budgetMs` of work has passed since the last yield. Keeps any one request from
 * holding other requests (and `/health`) longer than about the budget (README, Faults and outages).
 */
export class TimeSlice {
  private sliceStart = performance.now();

  constructor(private readonly budgetMs = 10) {}

  /** Whether the current slice has used its budget. */
  get due(): boolean {
    return performance.now() - this.sliceStart >= this.budgetMs;
  }

  /** Yields to the event loop if the slice's budget is used; otherwise returns at once. */
  async pause(): Promise<void> {
    if (!this.due) return;
    await new Promise((resolve) => setImmediate(resolve));
    this.sliceStart = performance.now();
  }
}

/** Maps `items` with `fn` on this thread, yielding every `budgetMs` of work. */
export async function mapSliced<T, R>(items: readonly T[], fn: (item: T, index: number) => R, budgetMs = 10): Promise<R[]> {
  const slice = new TimeSlice(budgetMs);
  const out: R[] = new Array(items.length);
  for (let i = 0; i < items.length; i++) {
    out[i] = fn(items[i], i);
    await slice.pause();
  }
  return out;
}

/**
 * `Buffer.concat(parts, size)` in slices: copies part by part into one new buffer, yielding every `budgetMs`. The
 * multipart parser joins a 50 MiB file's ~64 KiB pieces this way; one `Buffer.concat` of it held the event loop
 * for ~200 ms (docs/hot-paths.md "A large upload and the event loop").
 */
export async function concatSliced(parts: readonly Uint8Array[], size: number, budgetMs = 10): Promise<Buffer> {
  const total = parts.reduce((n, p) => n + p.length, 0);
  if (total !== size) throw new RangeError(`the parts hold ${total} bytes, not ${size}`);
  // Its own ArrayBuffer (not Node's shared pool): it may be transferred to a thread later.
  const out = Buffer.allocUnsafeSlow(size);
  const slice = new TimeSlice(budgetMs);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
    await slice.pause();
  }
  return out;
}

/** The SHA-256 (hex) of `bytes`, hashed 1 MiB at a time, yielding every `budgetMs` (a 50 MiB file hashes in ~40–150 ms). */
export async function sha256Sliced(bytes: Uint8Array, budgetMs = 10): Promise<string> {
  const hash = createHash('sha256');
  const slice = new TimeSlice(budgetMs);
  const STEP = 1024 * 1024;
  for (let offset = 0; offset < bytes.length; offset += STEP) {
    hash.update(bytes.subarray(offset, Math.min(offset + STEP, bytes.length)));
    await slice.pause();
  }
  return hash.digest('hex');
}
