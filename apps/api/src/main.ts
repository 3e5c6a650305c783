import { Logger } from '@nestjs/common';
import { AppConfig, ConfigValidationError } from '@arbiter/config';
import { AdminToken, TenantSeeds } from '@arbiter/tenancy';
import { createApp } from './create-app.js';
import { BootSignals, HttpDrain, installGracefulShutdown } from './graceful-shutdown.js';

async function main(): Promise<void> {
  const started = Date.now();
  // A signal during the boot waits for it to finish, then shuts down cleanly (README "Faults and outages").
  const bootSignals = new BootSignals();
  const app = await createApp();
  const config = app.get(AppConfig);
  // SIGTERM/SIGINT: drain, checkpoint and release the running job, close the database, exit 0 (README "Faults and outages").
  const { shuttingDown } = installGracefulShutdown(app, {
    graceMs: config.http.shutdownGraceMs,
    http: new HttpDrain(app.getHttpServer()),
    signalDuringBoot: bootSignals.end(),
  });
  if (shuttingDown) return;
  await app.listen({ port: config.http.port, host: config.http.host });
  const address = `http://${config.http.host === '0.0.0.0' ? 'localhost' : config.http.host}:${config.http.port}`;
  const lines = [
    '',
    `Arbiter is up in ${Date.now() - started} ms`,
    `  API:      ${address}`,
    `  Console:  ${address}/console/   (sign in with an operator key)`,
    `  Swagger:  ${address}/docs   (OpenAPI: ${address}/docs-json)`,
    `  Database: ${config.database.embedded ? `embedded PostgreSQL (PGlite) in ${config.database.dataDir}` : 'DATABASE_URL'}`,
  ];
  const adminToken = app.get(AdminToken);
  if (adminToken.generated) lines.push(`  Admin token (generated for this run; set ADMIN_TOKEN to fix it): ${adminToken.value}`);
  const demo = app.get(TenantSeeds).seededDemo;
  if (demo) {
    lines.push(
      `  Demo tenant created (keys shown once, also saved to ${config.database.dataDir}/demo-credentials.json):`,
      `    client key:   ${demo.apiKeys.client}`,
      `    operator key: ${demo.apiKeys.operator}`,
    );
  }
  process.stdout.write(lines.join('\n') + '\n\n');
}

main().catch((error: unknown) => {
  if (error instanceof ConfigValidationError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    new Logger('Boot').error(error instanceof Error ? error.message : String(error), error instanceof Error ? error.stack : undefined);
  }
  process.exit(1);
});
