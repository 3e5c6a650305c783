import { afterEach, describe, expect, it } from '@jest/globals';
import os from 'node:os';
import { noteStorageFull, resetStoragePressure } from '@arbiter/common';
import type { AppConfig } from '@arbiter/config';
import { StorageHealth } from './storage-health.js';

function health(embedded: boolean, dataDir = os.tmpdir()): StorageHealth {
  return new StorageHealth({ database: { embedded, dataDir } } as unknown as AppConfig);
}

describe('StorageHealth', () => {
  afterEach(() => resetStoragePressure());

  it('is ok with free space and no refused write', async () => {
    expect(await health(true).check()).toEqual({ status: 'ok' });
    expect(await health(false).check()).toEqual({ status: 'ok' });
  });

  it('is full for a minute after a write was refused for lack of space, then ok again', async () => {
    const now = Date.now();
    noteStorageFull(now);
    expect(await health(false).check(now + 1_000)).toEqual({ status: 'full', reason: 'write_refused', since: new Date(now).toISOString() });
    expect(await health(false).check(now + 61_000)).toEqual({ status: 'ok' });
  });

  it('reads the embedded data directory only (an unknown directory is not a verdict)', async () => {
    expect(await health(true, '/nonexistent/arbiter-data').check()).toEqual({ status: 'ok' });
  });
});
