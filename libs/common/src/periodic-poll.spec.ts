import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { PeriodicPoll } from './periodic-poll.js';

describe('PeriodicPoll', () => {
  afterEach(() => {
    jest.useRealTimers();
  });

  it('polls on the interval, never two at once, not while idle, and stop() waits for the poll in flight', async () => {
    jest.useFakeTimers();
    let release: () => void = () => undefined;
    let calls = 0;
    let idle = false;
    const poller = new PeriodicPoll(
      () => {
        calls++;
        return new Promise<void>((resolve) => (release = resolve));
      },
      100,
      () => idle,
    );
    poller.start();
    jest.advanceTimersByTime(350);
    expect(calls).toBe(1); // the first poll is still running: ticks 2 and 3 are skipped
    release();
    await Promise.resolve();
    await Promise.resolve();
    jest.advanceTimersByTime(100);
    expect(calls).toBe(2);
    release();
    await Promise.resolve();
    await Promise.resolve();
    idle = true;
    jest.advanceTimersByTime(500);
    expect(calls).toBe(2);
    idle = false;
    jest.advanceTimersByTime(100);
    expect(calls).toBe(3);
    let stopped = false;
    const stopping = poller.stop().then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false); // waits for the poll in flight
    release();
    await stopping;
    expect(poller.stopped).toBe(true);
    jest.advanceTimersByTime(1000);
    expect(calls).toBe(3);
  });
});
