import { Injectable } from '@nestjs/common';
import { statfs } from 'node:fs/promises';
import { storageFullSeenWithin } from '@arbiter/common';
import { AppConfig } from '@arbiter/config';

/** What `/health` reports about storage. */
export type StorageStatus = { status: 'ok' } | { status: 'full'; reason: 'write_refused' | 'low_free_space'; since?: string; freeBytes?: number };

/** A write refused for lack of space within this window keeps `/health` degraded. */
export const STORAGE_FULL_WINDOW_MS = 60_000;
/** Below this much free space in the embedded database's data directory, `/health` says degraded before writes fail. */
export const MIN_FREE_BYTES = 64 * 1024 * 1024;
const STATFS_CACHE_MS = 5_000;

/**
 * Storage for `/health`: `full` when a write was refused for lack of space within the last minute (the
 * only signal on PostgreSQL, whose disk the API cannot see) or, on the embedded database, when its data
 * directory's file system has less than 64 MiB free. Read-only paths keep working, so this degrades the
 * health answer instead of failing it (README, Faults and outages).
 */
@Injectable()
export class StorageHealth {
  private cached: { at: number; freeBytes: number | undefined } | undefined;

  constructor(private readonly config: AppConfig) {}

  async check(now = Date.now()): Promise<StorageStatus> {
    const since = storageFullSeenWithin(STORAGE_FULL_WINDOW_MS, now);
    if (since) return { status: 'full', reason: 'write_refused', since: since.toISOString() };
    const freeBytes = await this.freeBytes(now);
    if (freeBytes !== undefined && freeBytes < MIN_FREE_BYTES) return { status: 'full', reason: 'low_free_space', freeBytes };
    return { status: 'ok' };
  }

  private async freeBytes(now: number): Promise<number | undefined> {
    const { embedded, dataDir } = this.config.database;
    if (!embedded) return undefined;
    if (this.cached && now - this.cached.at < STATFS_CACHE_MS) return this.cached.freeBytes;
    const stats = await statfs(dataDir).catch(() => undefined);
    // bavail: blocks available to an unprivileged writer (root's reserve does not help the database).
    const freeBytes = stats ? stats.bavail * stats.bsize : undefined;
    this.cached = { at: now, freeBytes };
    return freeBytes;
  }
}
