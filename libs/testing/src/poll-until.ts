/**
 * Polls `probe` until `done` holds for its value, failing once `deadlineMs` have passed since `since`
 * (default: now) with the last value seen. The one poll-until of the test suites: a bar like "visible
 * within 1 s" is asserted by this deadline, not by comparing a measured duration afterwards.
 */
export async function pollUntil<T>(
  what: string,
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  opts: { deadlineMs: number; since?: number; intervalMs?: number },
): Promise<{ value: T; elapsedMs: number }> {
  const since = opts.since ?? performance.now();
  for (;;) {
    const value = await probe();
    const elapsedMs = performance.now() - since;
    if (done(value)) return { value, elapsedMs };
    if (elapsedMs > opts.deadlineMs) throw new Error(`${what}: not within ${opts.deadlineMs} ms (${Math.round(elapsedMs)} ms); last: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, opts.intervalMs ?? 20));
  }
}
