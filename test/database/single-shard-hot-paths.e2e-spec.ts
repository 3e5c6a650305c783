import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { createTestDatabase, testDbKind, type TestDatabase } from '@arbiter/testing';
import { seedChatTenant } from '../support/chat-tenant.js';
import {
  captureStatements,
  MULTI_TASK_MESSAGE,
  remoteCommands,
  withCitusStatementLog,
  type CapturedStatement,
  type StatementCapture,
} from '../support/citus-statements.js';
import { createTestApp, type TestApp, type TestTenant } from '../support/test-app.js';

type HotPath = 'chat turn' | 'lookup' | 'route' | 'feedback post' | 'session ingest' | 'stats read';

/**
 * Statements a hot-path request starts without waiting for them, and so sends in its async context, that are
 * cross-tenant by design (docs/SCALING.md "Hot paths on one shard"): the decision log's batched INSERT (a batch holds
 * the decisions of every tenant routed meanwhile, docs/decision-log.md) and the rate limiter's refresh of every
 * tenant's overrides (docs/http-edge.md "Rate limits"). Timers started at boot (cache version polls, the webhook
 * dispatcher, the job worker) run outside any request and are not attributed to one.
 */
const BACKGROUND = [/^\s*INSERT INTO decision_log \(/, /"per_key_per_minute" from "tenant_rate_limit"\s*$/];

/**
 * Hot-path statements known to leave their tenant's worker, with the reason each is still open (docs/SCALING.md "Hot
 * paths on one shard"). Such a statement is reported apart; the test fails when one no longer leaves the worker, so
 * that its entry goes with its fix.
 */
const OPEN: { path: HotPath; statement: RegExp; why: string }[] = [];

interface ShardPlacement {
  table: string;
  /** The shard's hash range start: the same for the co-located shards of every distributed table (one shard group). */
  group: string;
  port: number;
}

interface Tenant extends TestTenant {
  /** The worker holding the tenant's shards, and their shard group. */
  port: number;
  group: string;
}

const oneLine = (text: string, max: number) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)} …` : flat;
};

/**
 * Every statement of a hot path runs on one shard: the shard group of the request's tenant, on its worker. The API
 * replica under test connects with `citus.multi_task_query_log_level` and `citus.log_remote_commands`
 * (test/support/citus-statements.ts), so each statement comes back with what Citus did for it: a plan of more than one
 * task, and every command sent to a worker. A statement fails when Citus planned it for several tasks, sent a command
 * to another worker (an intermediate result copied there, a transaction opened there) or named another tenant's shard.
 * Only a request's own statements count: those sent in its async context (its request id), less {@link BACKGROUND}.
 */
(testDbKind() === 'citus' ? describe : describe.skip)('hot paths run on one shard (e2e, Citus)', () => {
  let db: TestDatabase;
  /** Creates and seeds the tenants; its statements are not looked at. */
  let setup: TestApp;
  /** The replica the hot paths run on: it has served no tenant before, so its caches load from the database. */
  let replica: TestApp;
  let capture: StatementCapture;
  let placements: Map<string, ShardPlacement>;
  const tenants: Tenant[] = [];
  const requests = new Map<string, { path: HotPath; tenant: Tenant }>();

  const placementOf = async (tenantId: string): Promise<{ port: number; group: string }> => {
    const { rows } = await db.pool.query<{ port: number; group: string }>(
      `SELECT n.nodeport AS port, s.shardminvalue AS group
         FROM pg_dist_shard s JOIN pg_dist_placement p USING (shardid) JOIN pg_dist_node n ON n.groupid = p.groupid
        WHERE s.shardid = get_shard_id_for_distribution_column('conversation', $1::uuid)`,
      [tenantId],
    );
    return rows[0]!;
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    setup = await createTestApp({}, db);
    // Two tenants whose shards live on different workers: a new tenant lands on either worker by its id's hash.
    const ports = new Set<number>();
    for (let n = 1; tenants.length < 2 && n <= 24; n++) {
      const tenant = await setup.createTenant(`hot-path-${n}`);
      const placement = await placementOf(tenant.id);
      if (ports.has(placement.port)) continue;
      ports.add(placement.port);
      tenants.push({ ...tenant, ...placement });
    }
    expect(tenants).toHaveLength(2);
    for (const tenant of tenants) await seedChatTenant(setup, tenant);
    const { rows } = await db.pool.query<ShardPlacement & { id: string }>(
      `SELECT s.shardid::text AS id, s.logicalrelid::regclass::text AS table, s.shardminvalue AS group, n.nodeport AS port
         FROM pg_dist_shard s JOIN pg_dist_placement p USING (shardid) JOIN pg_dist_node n ON n.groupid = p.groupid
        WHERE s.shardminvalue IS NOT NULL`,
    );
    placements = new Map(rows.map(({ id, ...placement }) => [id, placement]));
    replica = await createTestApp({ DATABASE_URL: withCitusStatementLog(db.url) }, db);
    capture = captureStatements(replica.app);
  });

  afterAll(async () => {
    capture?.restore();
    await replica?.close();
    await setup?.close();
    await db?.close();
  });

  let sequence = 0;
  const send = async (path: HotPath, tenant: Tenant, options: InjectOptions, status = 200): Promise<LightMyRequestResponse> => {
    const requestId = `hot-path-${++sequence}`;
    requests.set(requestId, { path, tenant });
    const res = await replica.request({ ...options, headers: { 'x-api-key': tenant.clientKey, ...options.headers, 'x-request-id': requestId } });
    if (res.statusCode !== status)
      throw new Error(`${path}: ${options.method} ${options.url} answered ${res.statusCode}, not ${status}: ${res.body.slice(0, 500)}`);
    return res;
  };

  /** What is wrong with a statement of `tenant`'s request, or null when it ran on the tenant's shard group alone. */
  const problemOf = (statement: CapturedStatement, tenant: Tenant): string | null => {
    const problems: string[] = [];
    if (statement.notices.some((n) => n.message === MULTI_TASK_MESSAGE)) problems.push(`Citus planned it for more than one task ("${MULTI_TASK_MESSAGE}")`);
    const commands = remoteCommands(statement);
    const elsewhere = commands.filter((c) => c.port !== tenant.port);
    if (elsewhere.length) {
      problems.push(
        `it sent ${elsewhere.length} command(s) to a worker that does not hold the tenant's shards (:${tenant.port} does), e.g. ` +
          elsewhere
            .slice(0, 3)
            .map((c) => `"${oneLine(c.command, 100)}" on :${c.port}`)
            .join(', '),
      );
    }
    const foreign = new Set<string>();
    for (const command of commands) {
      for (const [, id] of command.command.matchAll(/\b[a-z_][a-z0-9_]*_(\d{6,})\b/g)) {
        const placement = placements.get(id!);
        if (placement && placement.group !== tenant.group) foreign.add(`${placement.table} (shard ${id} on :${placement.port})`);
      }
    }
    if (foreign.size) problems.push(`it reached shards of another shard group: ${[...foreign].join(', ')}`);
    return problems.length ? problems.join('; ') : null;
  };

  /** Fails naming each statement of the path that did not run on its tenant's shard alone, and why. */
  const expectOneShard = (path: HotPath) => {
    const problems: string[] = [];
    const open = OPEN.filter((entry) => entry.path === path);
    const stillOpen = new Set<(typeof OPEN)[number]>();
    for (const tenant of tenants) {
      const own = capture.statements.filter((s) => {
        const request = s.requestId === undefined ? undefined : requests.get(s.requestId);
        return request?.path === path && request.tenant === tenant && !BACKGROUND.some((pattern) => pattern.test(s.sql));
      });
      // Not vacuous: the path sent statements to the tenant's worker.
      expect([path, tenant.port, own.some((s) => remoteCommands(s).some((c) => c.port === tenant.port))]).toEqual([path, tenant.port, true]);
      for (const statement of own) {
        const problem = problemOf(statement, tenant);
        if (!problem) continue;
        const known = open.find((entry) => entry.statement.test(statement.sql));
        if (known) stillOpen.add(known);
        else problems.push(`${path}, tenant on :${tenant.port}: ${oneLine(statement.sql, 400)}\n  → ${problem}`);
      }
    }
    expect(problems).toEqual([]);
    // An open entry whose statement now stays on the tenant's worker (or is gone) is removed with its fix.
    expect(open.filter((entry) => !stillOpen.has(entry)).map((entry) => `no longer seen, remove from OPEN: ${entry.why}`)).toEqual([]);
  };

  it('an intent route on a replica that has not served the tenant (its router loads from the database), then again', async () => {
    for (const tenant of tenants) {
      for (let n = 0; n < 2; n++) await send('route', tenant, { method: 'POST', url: '/ai/intent/route', payload: { message: 'the arm shows an alarm' } });
    }
    expectOneShard('route');
  });

  it('a chat turn and a follow-up turn of its conversation', async () => {
    for (const tenant of tenants) {
      const first = (await send('chat turn', tenant, { method: 'POST', url: '/ai/chat', payload: { message: '机械臂报警 E201 怎么处理？' } })).json<{
        conversationId: string;
      }>();
      await send('chat turn', tenant, { method: 'POST', url: '/ai/chat', payload: { message: '那 E202 呢？', conversationId: first.conversationId } });
    }
    expectOneShard('chat turn');
  });

  it('a knowledge lookup: of a session id that is not one of ours (an external run) and of our own session, fresh and with memory', async () => {
    for (const tenant of tenants) {
      const own = await setup.request({
        method: 'POST',
        url: '/api/sessions',
        headers: { 'x-api-key': tenant.clientKey },
        payload: { query: '机械臂怎么复位？', answer: '按住复位键三秒。', status: 'SUCCESS' },
      });
      expect(own.statusCode).toBe(201);
      for (const sessionId of ['hot-path-external-run', own.json<{ id: string }>().id]) {
        for (let n = 0; n < 2; n++)
          await send('lookup', tenant, { method: 'POST', url: '/ai/knowledge/lookup', payload: { sessionId, query: '机械臂怎么复位？' } });
      }
    }
    expectOneShard('lookup');
  });

  it('a feedback post: useful, then not useful', async () => {
    for (const tenant of tenants) {
      const session = await setup.request({
        method: 'POST',
        url: '/api/sessions',
        headers: { 'x-api-key': tenant.clientKey },
        payload: { query: '机械臂报警 E201 怎么处理？', answer: '请检查伺服驱动器的电源并重启控制柜。', status: 'SUCCESS' },
      });
      expect(session.statusCode).toBe(201);
      for (const feedback of ['useful', 'not_useful']) {
        await send('feedback post', tenant, { method: 'POST', url: '/api/feedback', payload: { sessionId: session.json<{ id: string }>().id, feedback } });
      }
    }
    expectOneShard('feedback post');
  });

  it('a session ingest', async () => {
    for (const tenant of tenants) {
      const payload = {
        query: '机械臂报警 E201 怎么处理？',
        answer: '请检查伺服驱动器的电源并重启控制柜。',
        status: 'SUCCESS',
        references: [{ documentId: 'doc-1', filePath: 'manuals/servo.md', title: 'Servo alarms', score: 0.82 }],
      };
      await send('session ingest', tenant, { method: 'POST', url: '/api/sessions', payload }, 201);
    }
    expectOneShard('session ingest');
  });

  it('a stats read: totals, by day, with agreement', async () => {
    for (const tenant of tenants) {
      for (const url of ['/admin/monitoring/stats', '/admin/monitoring/stats?groupBy=day', '/admin/monitoring/stats?agreement=true']) {
        await send('stats read', tenant, { method: 'GET', url, headers: { 'x-api-key': tenant.operatorKey } });
      }
    }
    expectOneShard('stats read');
  });
});
