/** A key as authentication sees it. */
export interface DirectoryKey {
  keyId: string;
  tenantId: string;
  role: string;
}

/** Where the directory reads keys from (the tenancy repository). */
export interface KeySource {
  /** Changes whenever a key is created, revoked or deleted. */
  version(): Promise<{ rows: number; stamp: string }>;
  /** Every active key, by SHA-256 hash. */
  load(): Promise<Map<string, DirectoryKey>>;
}

export type DirectoryAnswer = { kind: 'found'; key: DirectoryKey } | { kind: 'unknown' } | { kind: 'restoring' };

export interface ApiKeyDirectoryOptions {
  /** A miss older than this checks the database again (bounds how long a key made on another replica is refused). */
  freshMs: number;
  now?: () => number;
}

/**
 * Every active API key's hash in memory, kept in step with the key table by a cheap version check
 * (docs/http-edge.md "Keys"). A valid key is answered from memory; a wrong key costs a database round
 * trip at most once per `freshMs` for the whole process, however many different keys are guessed, and
 * concurrent checks share one. A key created in this process is known at once; one created or revoked
 * on another replica within `freshMs`.
 */
export class ApiKeyDirectory {
  private keys = new Map<string, DirectoryKey>();
  /** Keys added here that a load already under way may have missed (it read the table before their commit). */
  private readonly addedLocally = new Map<string, DirectoryKey>();
  private stamp: string | null = null;
  private rows = 0;
  private checkedAt = Number.NEGATIVE_INFINITY;
  private checking: Promise<void> | null = null;
  /** Once a key has been seen, an empty key table means a restore is loading its data (README, Faults and outages). */
  private keysSeen = false;
  private readonly now: () => number;

  constructor(
    private readonly source: KeySource,
    private readonly options: ApiKeyDirectoryOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  async resolve(hash: string): Promise<DirectoryAnswer> {
    const stale = this.now() - this.checkedAt >= this.options.freshMs;
    const known = this.keys.get(hash);
    if (known) {
      // Revocations elsewhere reach a hit through a check in the background, never on the request's path.
      if (stale) void this.check().catch(() => undefined);
      return { kind: 'found', key: known };
    }
    // While the table looks emptied by a restore, every miss looks again: the restore may have finished.
    if (stale || this.restoring()) await this.check();
    const key = this.keys.get(hash);
    if (key) return { kind: 'found', key };
    return this.restoring() ? { kind: 'restoring' } : { kind: 'unknown' };
  }

  private restoring(): boolean {
    return this.keysSeen && this.rows === 0;
  }

  /** A key this process just created authenticates at once, before any check. */
  add(hash: string, key: DirectoryKey): void {
    this.keys.set(hash, key);
    this.addedLocally.set(hash, key);
    this.keysSeen = true;
  }

  /** One version check (and a reload when it moved) shared by every caller that arrives meanwhile. */
  private check(): Promise<void> {
    this.checking ??= this.checkOnce().finally(() => {
      this.checking = null;
    });
    return this.checking;
  }

  private async checkOnce(): Promise<void> {
    const startedAt = this.now();
    // Added before this check began: committed before it reads, so the load below has them.
    const committedBefore = [...this.addedLocally.keys()];
    const version = await this.source.version();
    if (version.stamp !== this.stamp) {
      const keys = await this.source.load();
      for (const [hash, key] of this.addedLocally) if (!keys.has(hash)) keys.set(hash, key);
      this.keys = keys;
      this.stamp = version.stamp;
    }
    for (const hash of committedBefore) this.addedLocally.delete(hash);
    this.rows = version.rows;
    if (version.rows > 0) this.keysSeen = true;
    this.checkedAt = startedAt;
  }
}
