import type { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** What one measured window sent to the database: one entry per round trip (one `client.query`). */
export interface RoundTripLog {
  count: number;
  statements: string[];
}

export interface RoundTripCounter {
  /** Runs `fn` and returns what the app's pool sent meanwhile (only the app's pool: assertion pools are not counted). */
  measure<T>(fn: () => Promise<T>): Promise<{ result: T; trips: RoundTripLog }>;
  restore(): void;
  /** Adds `label` to the statements being measured, in order (e.g. what the server sent between two statements). */
  mark(label: string): void;
}

type QueryFn = (this: unknown, ...args: unknown[]) => unknown;

/**
 * Counts the database round trips of the app: every `query` call on a client of the app's pg pool is
 * one round trip (the extended protocol sends parse/bind/execute/sync together). The pool's client
 * class is the app's own subclass of `pg.Client` (libs/database pool options), so patching its
 * prototype counts the app's connections only, whatever else runs in the test process.
 */
export function roundTripCounter(app: INestApplicationContext): RoundTripCounter {
  return dataSourceRoundTripCounter(app.get(DataSource));
}

/**
 * The same for the pool of a DataSource an integration spec connected: its client class is `pg.Client` itself
 * unless the pool was given its own, so only statements of that spec's own pools may run while measuring.
 */
export function dataSourceRoundTripCounter(dataSource: DataSource): RoundTripCounter {
  const driver = dataSource.driver as unknown as { master: { Client: { prototype: Record<string, unknown> } } };
  const proto = driver.master.Client.prototype;
  const hadOwn = Object.prototype.hasOwnProperty.call(proto, 'query');
  const original = proto.query as QueryFn;
  let log: RoundTripLog | null = null;
  proto.query = function (this: unknown, ...args: unknown[]) {
    if (log) {
      const first = args[0] as string | { text?: string } | undefined;
      log.count++;
      log.statements.push((typeof first === 'string' ? first : (first?.text ?? '?')).replace(/\s+/g, ' ').trim().slice(0, 160));
    }
    return original.apply(this, args);
  } satisfies QueryFn;
  return {
    async measure(fn) {
      log = { count: 0, statements: [] };
      try {
        const result = await fn();
        return { result, trips: log };
      } finally {
        log = null;
      }
    },
    restore() {
      if (hadOwn) proto.query = original;
      else delete proto.query;
    },
    mark(label) {
      log?.statements.push(label);
    },
  };
}

/**
 * Statements that run on a timer or in the background, not for the request being measured: the intent
 * cache's and the case index's cross-replica version polls, the decision log's batch INSERT (docs/decision-log.md)
 * and the API key directory's version check and, when it found a change, its reload of the keys (at most one
 * a second per process, docs/http-edge.md "Keys"), and the rate limiter's refresh of every tenant's overrides (docs/http-edge.md "Rate limits").
 */
export function isBackgroundStatement(sql: string): boolean {
  return /FROM intent_tenant_config WHERE tenant_id = ANY|FROM case_library_version WHERE tenant_id = ANY|^\s*INSERT INTO decision_log |max\("changed_at"\) as "changed" from "api_key"|"allowed_origins" from "api_key"|"per_key_per_minute" from "tenant_rate_limit"\s*$/.test(
    sql,
  );
}
