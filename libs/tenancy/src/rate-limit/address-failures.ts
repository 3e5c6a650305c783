/**
 * Failed credential checks per client address in fixed one-minute windows, in memory (per process):
 * a guesser is slowed without a database statement (docs/http-edge.md "Rate limits").
 */
export class AddressFailures {
  private window = 0;
  private readonly counts = new Map<string, number>();

  constructor(
    private readonly limitPerMinute: number,
    private readonly now: () => number = Date.now,
    /** Beyond this many addresses in a window, new ones share one count (memory stays bounded). */
    private readonly maxAddresses = 100_000,
  ) {}

  /** Counts one failure of `address`; true when it is past the limit (answer 429, not 401). */
  record(address: string): boolean {
    if (this.limitPerMinute === 0) return false;
    this.roll();
    const key = this.counts.has(address) || this.counts.size < this.maxAddresses ? address : '*overflow*';
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    return count > this.limitPerMinute;
  }

  /** Seconds until the current window ends (`Retry-After`). */
  retryAfterSeconds(): number {
    return Math.max(1, Math.ceil((this.window + 60_000 - this.now()) / 1000));
  }

  private roll(): void {
    const window = Math.floor(this.now() / 60_000) * 60_000;
    if (window !== this.window) {
      this.window = window;
      this.counts.clear();
    }
  }
}
