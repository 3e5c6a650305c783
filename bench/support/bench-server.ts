/**
 * The Arbiter API as `createApp` builds it (same adapter, hooks, pipes, filter, modules), plus bench-only routes
 * (client auth, the caller's tenant), so a benchmark can seed and check on either database — the embedded one
 * lives inside this process: `POST /bench/insert` — exactly one INSERT — the baseline the chat throughput is
 * compared with; `GET /bench/session-statuses` — the tenant's sessions by status and the first failures;
 * `POST /bench/finished-sessions` — `count` finished sessions seeded for feedback (their ids); `DELETE
 * /bench/finished-sessions/:query` — the seeded sessions with that query and their cases; `GET /bench/feedback-check` —
 * the tenant's sessions, feedback and cases counted for `bench:feedback`'s check. Reads its configuration from the
 * environment; prints `READY <port>`.
 */
import 'reflect-metadata';
import { Body, Controller, Delete, Get, HttpCode, Module, Param, Post, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import {
  createValidationPipe,
  GlobalErrorFilter,
  JsonLogger,
  MetricsService,
  RequestContextStore,
  resolveRequestId,
  type LogLevelName,
  type TenantId,
} from '@arbiter/common';
import { AppConfig } from '@arbiter/config';
import { Auth, CurrentTenant } from '@arbiter/tenancy';
import { AppModule } from '../../apps/api/src/app.module.js';
import { registerHttpObservability } from '../../apps/api/src/http-metrics.js';

@Controller()
class BenchInsertController {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  @Post('bench/insert')
  @Auth('client')
  @HttpCode(201)
  async insert(@CurrentTenant() tenantId: TenantId): Promise<{ id: string }> {
    const rows: { id: string }[] = await this.ds.query(`INSERT INTO conversation (tenant_id, channel) VALUES ($1, 'bench') RETURNING id`, [tenantId]);
    return { id: rows[0]!.id };
  }

  @Get('bench/session-statuses')
  @Auth('client')
  async sessionStatuses(@CurrentTenant() tenantId: TenantId): Promise<{ statuses: Record<string, number>; failures: { error: string; n: number }[] }> {
    const counts: { status: string; n: number }[] = await this.ds.query(
      `SELECT status, count(*)::int AS n FROM diagnosis_session WHERE tenant_id = $1 GROUP BY status ORDER BY status`,
      [tenantId],
    );
    const failures: { error: string; n: number }[] = await this.ds.query(
      `SELECT left(error, 200) AS error, count(*)::int AS n FROM diagnosis_session WHERE tenant_id = $1 AND status = 'FAILED' GROUP BY 1 ORDER BY 2 DESC LIMIT 5`,
      [tenantId],
    );
    return { statuses: Object.fromEntries(counts.map((r) => [r.status, r.n])), failures };
  }

  @Post('bench/finished-sessions')
  @Auth('client')
  @HttpCode(201)
  async seedFinishedSessions(@CurrentTenant() tenantId: TenantId, @Body() body: { count: number; query?: string }): Promise<{ ids: string[] }> {
    const conversation: { id: string }[] = await this.ds.query(`INSERT INTO conversation (tenant_id) VALUES ($1) RETURNING id`, [tenantId]);
    // Each session its own question and answer unless `query` names them all (a batch to delete afterwards).
    const rows: { id: string }[] = await this.ds.query(
      `INSERT INTO diagnosis_session (tenant_id, conversation_id, query, answer, status, step_count, tool_call_count, finished_at)
       SELECT $1, $2, coalesce($4, '机械臂报警 E' || g || ' 怎么处理？'), '请检查伺服驱动器 ' || g || ' 的电源并重启控制柜。', 'SUCCESS', 2, 1, now()
         FROM generate_series(1, $3::int) AS g
       RETURNING id`,
      [tenantId, conversation[0]!.id, body.count, body.query ?? null],
    );
    return { ids: rows.map((r) => r.id) };
  }

  @Delete('bench/finished-sessions/:query')
  @Auth('client')
  async deleteFinishedSessions(@CurrentTenant() tenantId: TenantId, @Param('query') query: string): Promise<{ deleted: true }> {
    await this.ds.query(`DELETE FROM case_library WHERE tenant_id = $1 AND query = $2`, [tenantId, query]);
    await this.ds.query(`DELETE FROM diagnosis_session WHERE tenant_id = $1 AND query = $2`, [tenantId, query]);
    return { deleted: true };
  }

  @Get('bench/feedback-check')
  @Auth('client')
  async feedbackCheck(@CurrentTenant() tenantId: TenantId): Promise<Record<string, number>> {
    const rows: Record<string, number>[] = await this.ds.query(
      `SELECT
         (SELECT count(*)::int FROM diagnosis_session WHERE tenant_id = $1) AS sessions,
         (SELECT count(*)::int FROM diagnosis_session WHERE tenant_id = $1 AND feedback = 'useful' AND status = 'SUCCESS') AS useful,
         (SELECT count(*)::int FROM diagnosis_session WHERE tenant_id = $1 AND feedback = 'not_useful' AND status = 'BAD_CASE') AS bad,
         (SELECT count(*)::int FROM session_feedback WHERE tenant_id = $1) AS feedback_rows,
         (SELECT count(*)::int FROM case_library WHERE tenant_id = $1 AND retracted_at IS NULL) AS active_cases,
         (SELECT count(*)::int FROM case_library WHERE tenant_id = $1) AS case_rows,
         (SELECT count(DISTINCT session_id)::int FROM case_library WHERE tenant_id = $1) AS distinct_case_sessions,
         (SELECT count(*)::int FROM diagnosis_session s
            LEFT JOIN case_library c ON c.session_id = s.id AND c.retracted_at IS NULL
            LEFT JOIN session_feedback f ON f.session_id = s.id
           WHERE s.tenant_id = $1 AND (
             f.feedback IS DISTINCT FROM s.feedback
             OR (s.feedback = 'useful' AND (c.id IS NULL OR c.answer IS DISTINCT FROM s.answer))
             OR (s.feedback = 'not_useful' AND c.id IS NOT NULL))) AS inconsistent`,
      [tenantId],
    );
    return rows[0]!;
  }
}

@Module({})
class BenchAppModule {
  static forRoot(): DynamicModule {
    return { module: BenchAppModule, imports: [AppModule.forRoot({ env: { ...process.env } })], controllers: [BenchInsertController] };
  }
}

async function main(): Promise<void> {
  const adapter = new FastifyAdapter({
    bodyLimit: Number(process.env.BODY_LIMIT_BYTES ?? 1_048_576),
    genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => resolveRequestId(req.headers['x-request-id']),
    requestIdHeader: false,
    trustProxy: true,
  });
  const app = await NestFactory.create<NestFastifyApplication>(BenchAppModule.forRoot(), adapter, {
    logger: new JsonLogger((process.env.LOG_LEVEL ?? 'warn') as LogLevelName),
    abortOnError: false,
  });
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    RequestContextStore.run(String(request.id), done);
  });
  registerHttpObservability(fastify, app.get(MetricsService));
  app.useGlobalPipes(createValidationPipe());
  app.useGlobalFilters(new GlobalErrorFilter());
  app.enableShutdownHooks();
  await app.init();
  const port = app.get(AppConfig).http.port;
  await app.listen({ port, host: '127.0.0.1' });
  process.stdout.write(`READY ${port}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
