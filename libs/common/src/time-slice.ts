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
