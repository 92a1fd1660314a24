import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listenOn, toErrorBody } from '@skillrun/core';
import { notReadyError, type ReadinessCheck } from '@skillrun/core/data';
import type { Registry } from 'prom-client';

const TEXT = { 'content-type': 'text/plain' };

/**
 * The worker's own small HTTP server: GET /metrics in Prometheus' text format, GET /healthz (the
 * process answers) and GET /readyz (it can take work; 503 naming the failing checks otherwise).
 */
export class MetricsServer {
  private server: Server | undefined;

  constructor(
    private readonly registry: Registry,
    private readonly readiness: ReadinessCheck,
  ) {}

  /** Resolves with the address and port listened on (the port is useful when asked for port 0). */
  async listen(port: number, host: string): Promise<AddressInfo> {
    const server = createServer((request, response) => {
      this.answer(request, response).catch(() => {
        if (!response.headersSent) response.writeHead(500, TEXT).end('unavailable\n');
      });
    });
    this.server = server;
    // The worker's settings for this server: a port in use is reported as the one to change.
    return listenOn(server, port, host, { port: 'METRICS_PORT', host: 'METRICS_HOST' });
  }

  async close(): Promise<void> {
    const { server } = this;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
  }

  private async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = request.method === 'GET' ? request.url?.split('?')[0] : undefined;
    if (path === '/metrics') return this.metrics(response);
    if (path === '/healthz') return json(response, 200, { status: 'ok' });
    if (path === '/readyz') return this.ready(response);
    response.writeHead(404, TEXT).end('Not found: try GET /metrics, /healthz or /readyz\n');
  }

  private async metrics(response: ServerResponse): Promise<void> {
    const text = await this.registry.metrics();
    response.writeHead(200, { 'content-type': this.registry.contentType }).end(text);
  }

  private async ready(response: ServerResponse): Promise<void> {
    const report = await this.readiness.run();
    if (report.ready) json(response, 200, { status: 'ready', checks: report.checks });
    else
      json(
        response,
        503,
        { error: toErrorBody(notReadyError(report), 'SERVICE_UNAVAILABLE') },
        { 'retry-after': '1' },
      );
  }
}

function json(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  response
    .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers })
    .end(JSON.stringify(body));
}
