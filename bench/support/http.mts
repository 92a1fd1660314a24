import { Agent, request } from 'node:http';

export interface JsonAnswer {
  status: number;
  body: Record<string, unknown>;
}

/**
 * One keep-alive connection's worth of JSON requests, with node:http (less per-request overhead
 * than fetch, so a sequential latency figure is mostly the server's).
 */
export class JsonClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });

  constructor(
    private readonly baseUrl: string,
    private readonly headers: Record<string, string> = {},
  ) {}

  send(
    method: string,
    path: string,
    body?: string,
    headers: Record<string, string> = {},
  ): Promise<JsonAnswer> {
    return new Promise((resolve, reject) => {
      const req = request(
        `${this.baseUrl}${path}`,
        {
          method,
          agent: this.agent,
          headers: {
            ...this.headers,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...headers,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString();
            try {
              resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : {} });
            } catch (error) {
              reject(error);
            }
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
