import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

/** The worker's own small HTTP server: GET /metrics in Prometheus' text format, nothing else. */
export class MetricsServer {
  private server: Server | undefined;

  constructor(private readonly registry: Registry) {}

  /** Resolves with the port listened on (useful when asked for port 0). */
  async listen(port: number, host: string): Promise<number> {
    const server = createServer((request, response) => {
      if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
        response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: try GET /metrics\n');
        return;
      }
      this.registry.metrics().then(
        (text) => response.writeHead(200, { 'content-type': this.registry.contentType }).end(text),
        () => response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n'),
      );
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, resolve);
    });
    return (server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    const { server } = this;
    if (!server) return;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
