import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface AuthorizerServer {
  url: string;
  /** Every body the gateway sent, as received. */
  requests: Record<string, unknown>[];
  /** What the authorizer answers for a credential; anything else is 401. */
  grants: Map<string, { status: number; body?: unknown }>;
  close(): Promise<void>;
}

/** A partner's authorizer for `custom` auth skills, over real HTTP. */
export async function startAuthorizerServer(): Promise<AuthorizerServer> {
  const requests: Record<string, unknown>[] = [];
  const grants = new Map<string, { status: number; body?: unknown }>();
  const server = createServer(async (request, response) => {
    const body = JSON.parse(await readBody(request)) as Record<string, unknown>;
    requests.push(body);
    const grant = grants.get(String(body.credential)) ?? { status: 401 };
    response.writeHead(grant.status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(grant.body ?? {}));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/authorize`,
    requests,
    grants,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function readBody(request: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of request) text += String(chunk);
  return text;
}
