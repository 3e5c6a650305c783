/** Shared helpers of the retrieval benchmarks: a throw-away database (PostgreSQL or PGlite) and synthetic text. */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { runMigrations, startEmbeddedPostgres } from '@arbiter/database';
import { prng } from '@arbiter/testing';

export type BenchDb = 'postgres' | 'pglite';

export interface Target {
  kind: BenchDb;
  url: string;
  close(): Promise<void>;
}

export const benchDb = (): BenchDb => (process.env.BENCH_DB ?? 'postgres') as BenchDb;
const adminUrl = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export async function createTarget(kind: BenchDb, maxConnections = 40): Promise<Target> {
  let target: Target;
  if (kind === 'postgres') {
    const name = `arbiter_bench_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const u = new URL(adminUrl);
    u.pathname = `/${name}`;
    target = {
      kind,
      url: u.toString(),
      close: async () => {
        const c = new pg.Client({ connectionString: adminUrl });
        await c.connect();
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await c.end();
      },
    };
  } else {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'arbiter-bench-'));
    const embedded = await startEmbeddedPostgres(dir, maxConnections);
    target = {
      kind,
      url: embedded.url,
      close: async () => {
        await embedded.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  await runMigrations(target.url, path.resolve('migrations'));
  return target;
}

/** Deterministic PRNG (mulberry32) so runs are comparable. */
export const rng = prng;

const SYLLABLES = ['ka', 'ro', 'mi', 'te', 'su', 'lan', 'vor', 'pex', 'qui', 'dal', 'nor', 'zen', 'bri', 'tok', 'mar', 'sel'];
const HANZI = '机械臂控制器电源报警编码器伺服关节标定复位温度风扇负载速度精度程序示教器网络通信固件升级安装维护检查更换线缆模块'.split('');

/** A vocabulary of `size` pseudo-words: half Latin syllable words, half two-character Chinese words. */
export function vocabulary(size: number, random: () => number): string[] {
  const words = new Set<string>();
  while (words.size < size) {
    if (words.size % 2) words.add(HANZI[Math.floor(random() * HANZI.length)] + HANZI[Math.floor(random() * HANZI.length)]);
    else words.add(Array.from({ length: 2 + Math.floor(random() * 2) }, () => SYLLABLES[Math.floor(random() * SYLLABLES.length)]).join(''));
  }
  return [...words];
}

export function sentence(vocab: string[], words: number, random: () => number): string {
  return Array.from({ length: words }, () => vocab[Math.floor(random() * vocab.length)]).join(' ');
}

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return Number.NaN;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx];
}

export function writeResult(name: string, result: unknown): string {
  const dir = path.resolve('bench/results');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify(result, null, 2));
  return file;
}
