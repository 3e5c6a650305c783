/**
 * The Arbiter API as `createApp` builds it (same adapter, hooks, pipes, filter, modules), plus one
 * bench-only routes: `POST /bench/insert` — client auth, exactly one INSERT — the baseline the chat
 * throughput is compared with; `GET /bench/session-statuses` — the tenant's sessions by status and the first
 * failures, read after the run on either database. Reads its configuration from the environment; prints `READY <port>`.
 */
import 'reflect-metadata';
import { Controller, Get, HttpCode, Module, Post, type DynamicModule } from '@nestjs/common';
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
