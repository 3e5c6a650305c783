import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { MetricsService } from '@arbiter/common';
import { AppConfig } from '@arbiter/config';
import { secretsEqual } from '@arbiter/tenancy';

/** Whether `authorization` carries the metrics token (always true without one: /metrics is open by default, brief §3). */
export function metricsAuthorized(token: string | undefined, authorization: string | undefined): boolean {
  if (!token) return true;
  const given = authorization?.startsWith('Bearer ') ? authorization.slice(7).trim() : '';
  return secretsEqual(given, token);
}

/**
 * With `METRICS_PORT` set, /metrics is served by a listener of its own on that port (and the API's port
 * answers 404 for it), so a firewall can let only Prometheus reach it (README "Configuration").
 * A plain node:http server: one GET route needs no framework.
 */
@Injectable()
export class MetricsListener implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('MetricsListener');
  private server: http.Server | null = null;

  constructor(
    private readonly metrics: MetricsService,
    private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const port = this.config.metrics.port;
    if (port === undefined) return;
    const server = http.createServer((request, response) => void this.answer(request, response));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, this.config.http.host, () => resolve());
    });
    this.server = server;
    this.logger.log({ msg: 'metrics listener up', port: this.port });
  }

  /** The port it listens on (null without METRICS_PORT). */
  get port(): number | null {
    return this.server ? (this.server.address() as AddressInfo).port : null;
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async answer(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const path = (request.url ?? '').split('?')[0];
    if (request.method !== 'GET' || path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found\n');
      return;
    }
    if (!metricsAuthorized(this.config.metrics.token, request.headers.authorization)) {
      response.writeHead(401, { 'content-type': 'text/plain' }).end('Send Authorization: Bearer <METRICS_TOKEN>\n');
      return;
    }
    try {
      const body = await this.metrics.registry.metrics();
      response.writeHead(200, { 'content-type': this.metrics.registry.contentType, 'cache-control': 'no-store' }).end(body);
    } catch (error) {
      this.logger.error({ msg: 'metrics scrape failed', error: String(error) });
      response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n');
    }
  }
}
