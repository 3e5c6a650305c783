import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { JsonLogger, type LogLevelName } from '@arbiter/common';
import { AppConfig, ConfigValidationError } from '@arbiter/config';
import { AppModule } from '../../api/src/app.module.js';
import { BootSignals, installGracefulShutdown } from '../../api/src/graceful-shutdown.js';

/**
 * Runs only the scheduled and queued jobs (no HTTP), for deployments that keep API replicas
 * on JOBS_ENABLED=false. Needs DATABASE_URL: an embedded database belongs to one process.
 */
async function main(): Promise<void> {
  if (!process.env.DATABASE_URL) throw new Error('The worker needs DATABASE_URL (the embedded database belongs to the API process)');
  process.env.JOBS_ENABLED = 'true';
  const bootSignals = new BootSignals();
  const app = await NestFactory.createApplicationContext(AppModule.forRoot(), {
    logger: new JsonLogger((process.env.LOG_LEVEL ?? 'info') as LogLevelName),
    abortOnError: false,
  });
  // SIGTERM/SIGINT: the running job stops at its next checkpoint and is released, the pool closes, exit 0 (README "Faults and outages").
  const { shuttingDown } = installGracefulShutdown(app, { graceMs: app.get(AppConfig).http.shutdownGraceMs, signalDuringBoot: bootSignals.end() });
  if (shuttingDown) return;
  new Logger('Worker').log('Arbiter worker running jobs; stop with SIGTERM');
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigValidationError || error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
