import { existsSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';

/** Hashed asset names change with their content, so they may be cached for good; index.html never is (docs/console.md). */
const IMMUTABLE = 'public, max-age=31536000, immutable';
const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  // ECharts and React set inline style attributes.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/**
 * Serves the built operator console (`npm run build` → dist/console) at /console from the API process:
 * static files only, read by @fastify/static off the event loop, pre-compressed (.br/.gz) where the build wrote them.
 * Without a build, /console answers 404 naming the command that builds it.
 */
export async function registerConsole(app: NestFastifyApplication, consoleDir: string): Promise<void> {
  const fastify = app.getHttpAdapter().getInstance();
  if (!existsSync(path.join(consoleDir, 'index.html'))) {
    fastify.get('/console*', (request, reply) => {
      void reply.code(404).send({
        statusCode: 404,
        error: 'Not Found',
        message: 'The operator console is not built: run `npm run build` (or set CONSOLE_DIR)',
        requestId: String(request.id),
      });
    });
    return;
  }
  fastify.get('/console', (_request, reply) => reply.redirect('/console/', 301));
  await app.register(fastifyStatic, {
    root: consoleDir,
    prefix: '/console/',
    decorateReply: false,
    preCompressed: true,
    cacheControl: false,
    setHeaders: (reply, filePath) => {
      const isIndex = path.basename(filePath).startsWith('index.html');
      void reply.header('cache-control', isIndex ? 'no-cache' : IMMUTABLE);
      void reply.header('x-content-type-options', 'nosniff');
      if (isIndex) {
        void reply.header('content-security-policy', CONSOLE_CSP);
        void reply.header('referrer-policy', 'no-referrer');
      }
    },
  });
}
