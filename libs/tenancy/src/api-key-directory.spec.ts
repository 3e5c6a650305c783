import { describe, expect, it } from '@jest/globals';
import { ApiKeyDirectory, type DirectoryKey, type KeySource } from './api-key-directory.js';

const KEY_A: DirectoryKey = { keyId: 'a', tenantId: 't1', role: 'client', name: 'widget', allowedOrigins: [], validUntil: null };
const KEY_B: DirectoryKey = { keyId: 'b', tenantId: 't2', role: 'operator', name: 'ops', allowedOrigins: [], validUntil: null };

/** A key table in memory that counts what the directory asks of it. */
class FakeKeyTable implements KeySource {
  rows = new Map<string, DirectoryKey>();
  generation = 0;
  versions = 0;
  loads = 0;

  put(hash: string, key: DirectoryKey): void {
    this.rows.set(hash, key);
    this.generation++;
  }

  remove(hash: string): void {
    this.rows.delete(hash);
    this.generation++;
  }

  version(): Promise<{ rows: number; stamp: string }> {
    this.versions++;
    return Promise.resolve({ rows: this.rows.size, stamp: String(this.generation) });
  }

  load(): Promise<Map<string, DirectoryKey>> {
    this.loads++;
    return Promise.resolve(new Map(this.rows));
  }
}

function setup() {
  const table = new FakeKeyTable();
  let now = 1_000_000;
  const directory = new ApiKeyDirectory(table, { freshMs: 1000, now: () => now });
  return { table, directory, advance: (ms: number) => (now += ms) };
}

describe('ApiKeyDirectory', () => {
  it('answers a known key from memory after the first load', async () => {
    const { table, directory } = setup();
    table.put('ha', KEY_A);
    expect(await directory.resolve('ha')).toEqual({ kind: 'found', key: KEY_A });
    expect(await directory.resolve('ha')).toEqual({ kind: 'found', key: KEY_A });
    expect([table.versions, table.loads]).toEqual([1, 1]);
  });

  it('answers thousands of different wrong keys with one check per freshness window', async () => {
    const { table, directory, advance } = setup();
    table.put('ha', KEY_A);
    for (let i = 0; i < 3200; i++) expect(await directory.resolve(`guess-${i}`)).toEqual({ kind: 'unknown' });
    expect(table.versions).toBe(1);
    advance(1000);
    for (let i = 0; i < 100; i++) await directory.resolve(`guess-again-${i}`);
    expect(table.versions).toBe(2);
    expect(table.loads).toBe(1);
  });

  it('shares one check among concurrent misses', async () => {
    const { table, directory } = setup();
    await Promise.all(Array.from({ length: 50 }, (_, i) => directory.resolve(`guess-${i}`)));
    expect(table.versions).toBe(1);
  });

  it('finds a key created elsewhere once the window has passed, and reloads only when the version moved', async () => {
    const { table, directory, advance } = setup();
    table.put('ha', KEY_A);
    await directory.resolve('ha');
    table.put('hb', KEY_B);
    expect(await directory.resolve('hb')).toEqual({ kind: 'unknown' });
    advance(1000);
    expect(await directory.resolve('hb')).toEqual({ kind: 'found', key: KEY_B });
    advance(1000);
    await directory.resolve('nobody');
    expect([table.versions, table.loads]).toEqual([3, 2]);
  });

  it('knows a key added in this process at once, even while a load that missed it is under way', async () => {
    const { table, directory } = setup();
    table.put('ha', KEY_A);
    const staleLoad = table.load();
    table.load = () => staleLoad; // the load read the table before the new key's commit
    const first = directory.resolve('ha');
    directory.add('hb', KEY_B);
    await first;
    expect(await directory.resolve('hb')).toEqual({ kind: 'found', key: KEY_B });
  });

  it('refuses a key revoked elsewhere once the window has passed: the first request after it waits for the check', async () => {
    const { table, directory, advance } = setup();
    table.put('ha', KEY_A);
    table.put('hb', KEY_B);
    await directory.resolve('ha');
    table.remove('ha');
    advance(999);
    expect(await directory.resolve('ha')).toEqual({ kind: 'found', key: KEY_A });
    advance(1);
    expect(await directory.resolve('ha')).toEqual({ kind: 'unknown' });
    expect(await directory.resolve('hb')).toEqual({ kind: 'found', key: KEY_B });
  });

  it('refuses a key revoked in this process at once, even if a load under way read it', async () => {
    const { table, directory, advance } = setup();
    table.put('ha', KEY_A);
    await directory.resolve('ha');
    directory.remove('ha');
    expect(await directory.resolve('ha')).toEqual({ kind: 'unknown' });
    // A check whose load read the table before the revocation's commit does not bring it back.
    const staleLoad = table.load();
    table.load = () => staleLoad;
    table.generation++;
    advance(1000);
    const versions = table.versions;
    await directory.resolve('nobody-after-window');
    expect(table.versions).toBe(versions + 1);
    expect(await directory.resolve('ha')).toEqual({ kind: 'unknown' });
  });

  it('says expired once a secret is past its validity (expiry or the grace period of a rotated secret)', async () => {
    const { table, directory, advance } = setup();
    table.put('ha', { ...KEY_A, validUntil: 1_000_500 });
    expect(await directory.resolve('ha')).toMatchObject({ kind: 'found' });
    advance(500);
    expect(await directory.resolve('ha')).toEqual({ kind: 'expired' });
  });

  it('records when each key was last used, and hands the record over once', async () => {
    const { table, directory, advance } = setup();
    table.put('ha', KEY_A);
    table.put('hb', KEY_B);
    await directory.resolve('ha');
    advance(10);
    await directory.resolve('ha');
    await directory.resolve('nobody');
    expect(directory.drainUsage()).toEqual(new Map([['a', 1_000_010]]));
    expect(directory.drainUsage()).toEqual(new Map());
  });

  it('serves a key it knows while the key table cannot be read; a miss gets the failure', async () => {
    const { table, directory, advance } = setup();
    table.put('ha', KEY_A);
    await directory.resolve('ha');
    table.version = () => Promise.reject(new Error('database down'));
    advance(1000);
    expect(await directory.resolve('ha')).toEqual({ kind: 'found', key: KEY_A });
    await expect(directory.resolve('hx')).rejects.toThrow('database down');
  });

  it('says restoring, not unknown, when a key table it has seen keys in is empty', async () => {
    const { table, directory, advance } = setup();
    expect(await directory.resolve('ha')).toEqual({ kind: 'unknown' });
    table.put('ha', KEY_A);
    advance(1000);
    await directory.resolve('ha');
    table.remove('ha');
    advance(1000);
    expect(await directory.resolve('ha')).toEqual({ kind: 'restoring' });
    // The restore finishes: the next request finds the key without waiting out the window.
    const versions = table.versions;
    table.put('ha', KEY_A);
    expect(await directory.resolve('ha')).toEqual({ kind: 'found', key: KEY_A });
    expect(table.versions).toBe(versions + 1);
  });

  it('lets a failed check reach the caller on a miss', async () => {
    const { table, directory } = setup();
    table.version = () => Promise.reject(new Error('database down'));
    await expect(directory.resolve('x')).rejects.toThrow('database down');
  });
});
