/**
 * Where replicas that share a database reserve parts of a window's budget (the rate-limit repository on
 * PostgreSQL). Null store: one process, everything counted in memory (the embedded database).
 */
export interface LeaseStore {
  /**
   * Reserves up to `want` of `limit` for `bucket` in the window starting at `windowStart` (epoch ms).
   * Returns how many were granted (0: the window is spent) and how many are reserved now in all.
   */
  reserve(tenantId: string, bucket: string, windowStart: number, want: number, limit: number): Promise<{ granted: number; reserved: number }>;
}

export interface BudgetDecision {
  allowed: boolean;
  limit: number;
  /** Requests left in this window (across replicas, as far as this one knows). */
  remaining: number;
  /** Seconds until the window ends (`Retry-After` when refused). */
  resetSeconds: number;
}

export interface WindowBudgetsOptions {
  windowMs: number;
  store: LeaseStore | null;
  now?: () => number;
  /** Buckets of past windows are dropped once more than this many are held. */
  maxBuckets?: number;
}

interface BucketState {
  window: number;
  /** Requests this process may still admit from what it reserved. */
  held: number;
  used: number;
  /** Reserved in all replicas, as the store last said. */
  reserved: number;
  spent: boolean;
  reserving: Promise<void> | null;
}

/**
 * How many requests a replica reserves at once: about 2 % of the limit, so counting costs one statement
 * per that many requests, and what replicas hold unused when a window ends (at most this per replica)
 * keeps the admitted rate within a few percent of the limit (docs/http-edge.md "Rate limits").
 */
export function leaseSize(limit: number): number {
  return Math.min(1000, Math.max(1, Math.ceil(limit / 50)));
}

/**
 * Fixed-window budgets per bucket (a key or a tenant, per route class). Without a store each bucket is
 * counted in memory. With one, a replica admits requests from leases it reserves in the shared table,
 * so the replicas together never admit more than the limit, with no database statement per request.
 */
export class WindowBudgets {
  private readonly buckets = new Map<string, BucketState>();
  private readonly now: () => number;

  constructor(private readonly options: WindowBudgetsOptions) {
    this.now = options.now ?? Date.now;
  }

  async take(tenantId: string, bucket: string, limit: number): Promise<BudgetDecision> {
    for (;;) {
      const now = this.now();
      const window = Math.floor(now / this.options.windowMs) * this.options.windowMs;
      const resetSeconds = Math.max(1, Math.ceil((window + this.options.windowMs - now) / 1000));
      const state = this.stateOf(bucket, window);
      const store = this.options.store;
      if (store === null) {
        if (state.used >= limit) return { allowed: false, limit, remaining: 0, resetSeconds };
        state.used++;
        return { allowed: true, limit, remaining: limit - state.used, resetSeconds };
      }
      if (state.held === 0 && !state.spent) {
        state.reserving ??= this.reserve(store, tenantId, bucket, state, limit).finally(() => {
          state.reserving = null;
        });
        await state.reserving;
        if (this.buckets.get(bucket) !== state || state.window !== Math.floor(this.now() / this.options.windowMs) * this.options.windowMs) continue;
        if (state.held === 0 && !state.spent) continue;
      }
      if (state.held === 0) return { allowed: false, limit, remaining: 0, resetSeconds };
      state.held--;
      state.used++;
      return { allowed: true, limit, remaining: Math.max(0, limit - state.reserved + state.held), resetSeconds };
    }
  }

  private async reserve(store: LeaseStore, tenantId: string, bucket: string, state: BucketState, limit: number): Promise<void> {
    const { granted, reserved } = await store.reserve(tenantId, bucket, state.window, leaseSize(limit), limit);
    state.held += granted;
    state.reserved = reserved;
    if (granted === 0) state.spent = true;
  }

  private stateOf(bucket: string, window: number): BucketState {
    let state = this.buckets.get(bucket);
    if (!state || state.window !== window) {
      if (this.buckets.size >= (this.options.maxBuckets ?? 100_000)) for (const [name, s] of this.buckets) if (s.window < window) this.buckets.delete(name);
      state = { window, held: 0, used: 0, reserved: 0, spent: false, reserving: null };
      this.buckets.set(bucket, state);
    }
    return state;
  }
}
