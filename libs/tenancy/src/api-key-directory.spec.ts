import { describe, expect, it } from '@jest/globals';
import { ApiKeyDirectory, type DirectoryKey, type KeySource } from './api-key-directory.js';

const KEY_A: DirectoryKey = { keyId: 'a', tenantId: 't1', role: 'client' };
const KEY_B: DirectoryKey = { keyId: 'b', tenantId: 't2', role: 'operator' };

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

  it('notices a revocation elsewhere within the window, without delaying the request that notices', async () => {
    const { table, directory, advance } = setup();
    table.put('ha', KEY_A);
    table.put('hb', KEY_B);
    await directory.resolve('ha');
    table.remove('ha');
    advance(1000);
    // Served from memory while the background check runs; refused once it has.
    expect(await directory.resolve('ha')).toEqual({ kind: 'found', key: KEY_A });
    await new Promise((resolve) => setImmediate(resolve));
    expect(await directory.resolve('ha')).toEqual({ kind: 'unknown' });
    expect(await directory.resolve('hb')).toEqual({ kind: 'found', key: KEY_B });
  });

  it('says restoring, not unknown, when a key table it has seen keys in is empty', async () => {
    const { table, directory, advance } = setup();
    expect(await directory.resolve('ha')).toEqual({ kind: 'unknown' });
    table.put('ha', KEY_A);
    advance(1000);
    await directory.resolve('ha');
    table.remove('ha');
    advance(1000);
    await directory.resolve('ha');
    await new Promise((resolve) => setImmediate(resolve));
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
