/**
 * A background poll on a timer (the per-tenant caches' cross-replica version checks): runs `poll` every
 * `intervalMs`, never two at once, skipped while `idle()` says there is nothing to check; the timer does
 * not keep the process alive; `stop()` ends it and waits for a poll in flight. `poll` handles its own errors.
 */
export class PeriodicPoll {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stoppedFlag = false;

  constructor(
    private readonly poll: () => Promise<void>,
    private readonly intervalMs: number,
    private readonly idle: () => boolean = () => false,
  ) {}

  get stopped(): boolean {
    return this.stoppedFlag;
  }

  start(): void {
    if (this.timer !== null || this.stoppedFlag) return;
    this.timer = setInterval(() => {
      if (this.running !== null || this.stoppedFlag || this.idle()) return;
      this.running = this.poll().finally(() => {
        this.running = null;
      });
    }, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stoppedFlag = true;
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
