import { Agent, request } from 'node:http';

/** A request exactly as written: the path is sent as is (no `..` folding), the body as raw bytes. */
export interface RawRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * Sends one request with node:http rather than fetch, which would normalise the path and refuse
 * some bodies. A body the server stops reading (413) may end in a reset; the answer still counts.
 */
export function rawRequest(baseUrl: string, raw: RawRequest, agent: Agent): Promise<RawAnswer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: url.hostname,
        port: url.port,
        method: raw.method,
        path: raw.path,
        agent,
        headers: {
          // A chunked body has no length (a request with both is refused by Node's own parser).
          ...(raw.body === undefined || raw.headers?.['transfer-encoding']
            ? {}
            : { 'content-length': String(Buffer.byteLength(raw.body)) }),
          ...raw.headers,
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    // The server may answer (413, 415) and close before the whole body is written: not our error,
    // as long as the answer arrives; a socket that closes without one rejects.
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    outgoing.on('close', () =>
      reject(new Error(`${raw.method} ${raw.path.slice(0, 80)}: closed without an answer`)),
    );
    outgoing.end(raw.body);
  });
}

/** Runs `task` over `items` with at most `limit` in flight; answers in the items' order. */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

/** A keep-alive agent for `limit` parallel requests; destroy it when done. */
export function keepAliveAgent(limit: number): Agent {
  return new Agent({ keepAlive: true, maxSockets: limit });
}
