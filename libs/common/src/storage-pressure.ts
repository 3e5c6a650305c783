/**
 * When the last "storage full" error was seen, process-wide. The error filter records it (any route's
 * write can be the one that hits the full disk) and `/health` reads it to report `degraded` until the
 * window has passed without another one — on PostgreSQL the API cannot look at the server's disk, so
 * the errors are the only signal (README, Faults and outages).
 */
let lastStorageFullAt: number | undefined;

export function noteStorageFull(now = Date.now()): void {
  lastStorageFullAt = now;
}

/** The time of the last storage-full error within `windowMs`, or undefined. */
export function storageFullSeenWithin(windowMs: number, now = Date.now()): Date | undefined {
  return lastStorageFullAt !== undefined && now - lastStorageFullAt <= windowMs ? new Date(lastStorageFullAt) : undefined;
}

/** For tests: forget what was seen. */
export function resetStoragePressure(): void {
  lastStorageFullAt = undefined;
}
