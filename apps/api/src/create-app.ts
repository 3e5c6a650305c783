import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { createValidationPipe, GlobalErrorFilter, JsonLogger, MetricsService, RequestContextStore, resolveRequestId, type LogLevelName } from '@arbiter/common';
import { AppConfig, type AppConfigModuleOptions } from '@arbiter/config';
import { BackgroundGate } from '@arbiter/database';
import { ADMIN_SECURITY, API_KEY_SECURITY, RateLimiter, registerAuthenticationHook, RequestAuthenticator } from '@arbiter/tenancy';
import { AppModule } from './app.module.js';
import { registerConsole } from './console-static.js';
import { registerHttpObservability } from './http-metrics.js';
import { registerBodyParsers } from './http-edge/body-parsers.js';
import { registerBodyPolicy } from './http-edge/body-policy.js';
import { registerCors } from './http-edge/cors.js';
import { registerForegroundTracking } from './http-edge/foreground.js';
import { registerMultipartParser } from './http-edge/multipart-parser.js';
import { clientErrorHandler, frameworkErrors, registerInputGuards } from './input-guards.js';

/** TRUST_PROXY as Fastify's `trustProxy` takes it: false (default), true, or the proxies' addresses/CIDRs (validated again by the config class). */
export function parseTrustProxy(value: string | undefined): boolean | string[] {
  const text = (value ?? '').trim();
  if (text === '' || text === 'false') return false;
  if (text === 'true') return true;
  return text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
}

export interface CreateAppOptions extends AppConfigModuleOptions {
  logLevel?: LogLevelName;
}

/** Builds the fully configured HTTP application (used by main.ts and the e2e tests). */
export async function createApp(options: CreateAppOptions = {}): Promise<NestFastifyApplication> {
  const bodyLimit = Number(options.env?.BODY_LIMIT_BYTES ?? process.env.BODY_LIMIT_BYTES ?? 1_048_576);
  const adapter = new FastifyAdapter({
    bodyLimit,
    genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => resolveRequestId(req.headers['x-request-id']),
    requestIdHeader: false,
    // Whether X-Forwarded-For names the client (the per-address limit of failed credentials, docs/http-edge.md "Rate limits").
    trustProxy: parseTrustProxy(options.env?.TRUST_PROXY ?? process.env.TRUST_PROXY),
    clientErrorHandler,
    frameworkErrors,
  });
  const logLevel = options.logLevel ?? ((options.env?.LOG_LEVEL ?? process.env.LOG_LEVEL ?? 'info') as LogLevelName);
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(options), adapter, {
    logger: new JsonLogger(logLevel),
    abortOnError: false,
    // The API registers its own parsers (http-edge/body-parsers.ts): JSON and NDJSON only, depth-checked.
    bodyParser: false,
  });
  const config = app.get(AppConfig);
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    RequestContextStore.run(String(request.id), done);
  });
  registerForegroundTracking(fastify, app.get(BackgroundGate));
  registerHttpObservability(fastify, app.get(MetricsService));
  await registerCors(fastify, config.http.corsOrigins);
  // The request line and headers, then credentials, then the body's type, size and time limits, then
  // parsing: no byte of a body is read for a request that fails an earlier step (docs/http-edge.md).
  registerInputGuards(fastify);
  registerAuthenticationHook(fastify, app.get(RequestAuthenticator), app.get(RateLimiter));
  registerBodyPolicy(fastify, { timeoutMs: config.http.bodyTimeoutMs });
  registerBodyParsers(fastify);
  registerMultipartParser(fastify);
  app.useGlobalPipes(createValidationPipe());
  app.useGlobalFilters(new GlobalErrorFilter());
  // No app.enableShutdownHooks(): main.ts handles SIGTERM/SIGINT (graceful-shutdown.ts) — Nest's hooks would close the
  // database under in-flight requests and end the process by re-raising the signal (README "Faults and outages").

  if (config.http.swaggerEnabled) {
    const document = SwaggerModule.createDocument(
      app,
      new DocumentBuilder()
        .setTitle('Arbiter API')
        .setDescription(
          'Trust layer for LLM support assistants: hybrid intent routing, graded retrieval, confidence, coverage and feedback. ' +
            'Tenant endpoints take an `X-Api-Key` (client or operator key); `/admin/tenants` takes `Authorization: Bearer <ADMIN_TOKEN>`. ' +
            'Every error has the shape `{statusCode, error, message, details?, requestId}`.',
        )
        .setVersion('0.1.0')
        .addApiKey({ type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'Tenant API key (client or operator)' }, API_KEY_SECURITY)
        .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'Platform ADMIN_TOKEN' }, ADMIN_SECURITY)
        .build(),
    );
    SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs-json' });
  }
  await registerConsole(app, config.consoleDir);
  try {
    await app.init();
    await fastify.ready();
  } catch (error) {
    // Release what did start (pool, embedded database) so a failed boot leaves nothing behind.
    await app.close().catch(() => undefined);
    throw error;
  }
  return app;
}
