/** A key as authentication sees it. */
export interface DirectoryKey {
  keyId: string;
  tenantId: string;
  role: string;
  name: string;
  /** Origins a browser may send this key from; empty = any (docs/http-edge.md "Browser-safe client keys"). */
  allowedOrigins: readonly string[];
  /**
   * Epoch ms after which this secret no longer authenticates: the key's expiry, or for the previous
   * secret of a rotated key the end of its grace period (whichever is first). Null = never.
   */
  validUntil: number | null;
}

/** Where the directory reads keys from (the tenancy repository). */
export interface KeySource {
  /** Changes whenever a key is created, rotated, edited, revoked or deleted. */
  version(): Promise<{ rows: number; stamp: string }>;
  /** Every secret that may authenticate (current and in-grace previous ones), by SHA-256 hash. */
  load(): Promise<Map<string, DirectoryKey>>;
}

export type DirectoryAnswer = { kind: 'found'; key: DirectoryKey } | { kind: 'expired' } | { kind: 'unknown' } | { kind: 'restoring' };

export interface ApiKeyDirectoryOptions {
  /**
   * An answer is given from memory only while the last check of the key table started less than this
   * long ago; otherwise the request waits for one check (shared). So a key created, rotated or revoked
   * on another replica is seen within this window.
   */
  freshMs: number;
  now?: () => number;
}

/**
 * Every secret that may authenticate, hashed, in memory, kept in step with the key table by a cheap
 * version check (docs/http-edge.md "Keys"). Within the freshness window a valid key and a wrong key
 * are both answered from memory: however many different keys are guessed, the table is read at most
 * once per window for the whole process, and concurrent checks share one. A key created or revoked
 * in this process is known at once; one created or revoked on another replica within the window.
 * It also counts when each key was last used, for a batched write (never one write per request).
 */
export class ApiKeyDirectory {
  private keys = new Map<string, DirectoryKey>();
  /** Keys added here that a load already under way may have missed (it read the table before their commit). */
  private readonly addedLocally = new Map<string, DirectoryKey>();
  /** Keys revoked here that a load already under way may still have read. */
  private readonly removedLocally = new Set<string>();
  private readonly lastUsed = new Map<string, number>();
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
    // While the table looks emptied by a restore, every request looks again: the restore may have finished.
    if (stale || this.restoring()) {
      const known = this.keys.get(hash);
      try {
        await this.check();
      } catch (error) {
        // The table cannot be read: a key known before is still served (its route fails on its own if
        // it needs the database); a miss cannot be told from a new key, so the failure reaches the caller.
        if (!known) throw error;
      }
    }
    const key = this.keys.get(hash);
    if (!key) return this.restoring() ? { kind: 'restoring' } : { kind: 'unknown' };
    if (key.validUntil !== null && this.now() >= key.validUntil) return { kind: 'expired' };
    this.lastUsed.set(key.keyId, this.now());
    return { kind: 'found', key };
  }

  private restoring(): boolean {
    return this.keysSeen && this.rows === 0;
  }

  /** A key this process just created (or a secret it just issued) authenticates at once, before any check. */
  add(hash: string, key: DirectoryKey): void {
    this.keys.set(hash, key);
    this.addedLocally.set(hash, key);
    this.removedLocally.delete(hash);
    this.keysSeen = true;
  }

  /** A secret this process just revoked (or cut short) is refused at once. */
  remove(hash: string): void {
    this.keys.delete(hash);
    this.addedLocally.delete(hash);
    this.removedLocally.add(hash);
  }

  /** When each key was last used since the previous call (epoch ms), for one batched write. */
  drainUsage(): Map<string, number> {
    const used = new Map(this.lastUsed);
    this.lastUsed.clear();
    return used;
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
    // Added or removed before this check began: committed before it reads, so the load below agrees.
    const addedBefore = [...this.addedLocally.keys()];
    const removedBefore = [...this.removedLocally];
    const version = await this.source.version();
    if (version.stamp !== this.stamp) {
      const keys = await this.source.load();
      for (const [hash, key] of this.addedLocally) if (!keys.has(hash)) keys.set(hash, key);
      for (const hash of this.removedLocally) keys.delete(hash);
      this.keys = keys;
      this.stamp = version.stamp;
    }
    for (const hash of addedBefore) this.addedLocally.delete(hash);
    for (const hash of removedBefore) this.removedLocally.delete(hash);
    this.rows = version.rows;
    if (version.rows > 0) this.keysSeen = true;
    this.checkedAt = startedAt;
  }
}
