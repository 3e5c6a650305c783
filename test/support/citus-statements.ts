import type { INestApplicationContext } from '@nestjs/common';
import type pg from 'pg';
import { DataSource } from 'typeorm';
import { RequestContextStore } from '@arbiter/common';

/**
 * What Citus tells a session about a statement it runs, as NOTICE/WARNING messages (docs/SCALING.md "Hot paths on one
 * shard"): `citus.multi_task_query_log_level` reports a distributed plan (the statement's or one of its subplans') that
 * runs as more than one task, `citus.log_remote_commands` every command the coordinator sends to a worker.
 */
export const CITUS_STATEMENT_LOG = ['citus.multi_task_query_log_level=warning', 'citus.log_remote_commands=on'] as const;

/** Citus's message for a plan of more than one task (src/backend/distributed/planner/distributed_planner.c, FinalizePlan). */
export const MULTI_TASK_MESSAGE = 'multi-task query about to be executed';

/** `url` with {@link CITUS_STATEMENT_LOG} set for every connection opened with it (libpq's `options`). */
export function withCitusStatementLog(url: string): string {
  const u = new URL(url);
  u.searchParams.set('options', CITUS_STATEMENT_LOG.map((setting) => `-c ${setting}`).join(' '));
  return u.toString();
}

export interface CapturedNotice {
  severity: string;
  message: string;
  detail?: string;
}

/** One `client.query` of the app's pool: its text, the request it ran for, and what Citus said while it ran. */
export interface CapturedStatement {
  /** The request id (`X-Request-Id`) of the request whose async context sent it; undefined outside any request. */
  requestId: string | undefined;
  sql: string;
  notices: CapturedNotice[];
}

/** A command the coordinator sent to a worker for a statement (`citus.log_remote_commands`), and that worker's port. */
export interface RemoteCommand {
  command: string;
  port: number;
}

/** The commands a statement made the coordinator send to workers, in order. */
export function remoteCommands(statement: CapturedStatement): RemoteCommand[] {
  return statement.notices.flatMap((notice) => {
    const server = /^on server \S+@\S+:(\d+) connectionId/.exec(notice.detail ?? '');
    return notice.message.startsWith('issuing ') && server ? [{ command: notice.message.slice('issuing '.length), port: Number(server[1]) }] : [];
  });
}

export interface StatementCapture {
  /** Every statement sent since the capture began, in order. */
  readonly statements: readonly CapturedStatement[];
  restore(): void;
}

type QueryFn = (this: pg.Client, ...args: unknown[]) => unknown;

function textOf(first: unknown): string {
  if (typeof first === 'string') return first;
  if (first !== null && typeof first === 'object' && 'text' in first && typeof first.text === 'string') return first.text;
  return '?';
}

/**
 * Records every statement the app's pool sends, with the request it belongs to and the notices its connection
 * received while it ran. The pool's client class is the app's own subclass of `pg.Client` (libs/database pool
 * options), so patching its prototype sees the app's connections only, not the test's assertion pool. A client runs
 * its queries one after another, so a notice belongs to the oldest of its queries not yet finished.
 */
export function captureStatements(app: INestApplicationContext): StatementCapture {
  const driver = app.get(DataSource).driver as unknown as { master: { Client: { prototype: Record<string, unknown> } } };
  const proto = driver.master.Client.prototype;
  const hadOwn = Object.prototype.hasOwnProperty.call(proto, 'query');
  const original = proto.query as QueryFn;
  const statements: CapturedStatement[] = [];
  const pending = new WeakMap<pg.Client, CapturedStatement[]>();
  const queueOf = (client: pg.Client): CapturedStatement[] => {
    let queue = pending.get(client);
    if (!queue) {
      const created: CapturedStatement[] = [];
      pending.set(client, created);
      client.on('notice', (notice) => {
        created[0]?.notices.push({ severity: notice.severity ?? '?', message: notice.message ?? '', ...(notice.detail ? { detail: notice.detail } : {}) });
      });
      queue = created;
    }
    return queue;
  };
  proto.query = function (this: pg.Client, ...args: unknown[]) {
    const statement: CapturedStatement = { requestId: RequestContextStore.requestId(), sql: textOf(args[0]), notices: [] };
    statements.push(statement);
    const queue = queueOf(this);
    queue.push(statement);
    const done = () => {
      const at = queue.indexOf(statement);
      if (at >= 0) queue.splice(at, 1);
    };
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === 'function') {
      args[last] = (...result: unknown[]) => {
        done();
        return (callback as (...r: unknown[]) => unknown)(...result);
      };
      return original.apply(this, args);
    }
    const result = original.apply(this, args);
    if (result instanceof Promise) result.then(done, done);
    else done(); // a Submittable (cursor, stream): the app uses none; its notices would go to the next statement
    return result;
  } satisfies QueryFn;
  return {
    statements,
    restore() {
      if (hadOwn) proto.query = original;
      else delete proto.query;
    },
  };
}
