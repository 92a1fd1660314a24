import autocannon from 'autocannon';

/** Where and what to POST: one request, or several that each connection sends in turn. */
export interface HttpTarget {
  url: string;
  headers: Record<string, string>;
  requests: { path: string; body: string }[];
}

export interface LoadResult {
  /** Answers by HTTP status. */
  statuses: Map<number, number>;
  /** Latency of each 202, in ms (autocannon's own histogram rounds to whole milliseconds). */
  latencies: number[];
  /** Connection errors and timeouts. */
  errors: number;
  timeouts: number;
  seconds: number;
}

export function count(result: LoadResult, status: number): number {
  return result.statuses.get(status) ?? 0;
}

export function answered(result: LoadResult): number {
  let total = 0;
  for (const value of result.statuses.values()) total += value;
  return total;
}

/**
 * Runs autocannon for `duration` seconds or `amount` requests over `connections` connections, as
 * fast as answers come or, with `rate`, paced to that many requests per second in all.
 */
export function load(
  target: HttpTarget,
  options: { connections: number; duration?: number; amount?: number; rate?: number },
): Promise<LoadResult> {
  const statuses = new Map<number, number>();
  const latencies: number[] = [];
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const instance = autocannon(
      {
        url: target.url,
        connections: options.connections,
        ...(options.amount === undefined ? { duration: options.duration ?? 5 } : { amount: options.amount }),
        ...(options.rate === undefined ? {} : { overallRate: options.rate }),
        headers: { 'content-type': 'application/json', ...target.headers },
        requests: target.requests.map(({ path, body }) => ({ method: 'POST' as const, path, body })),
        // A slow answer is a figure; only a stuck one is an error.
        timeout: 30,
      },
      (error, result) => {
        if (error) return reject(error);
        resolve({
          statuses,
          latencies,
          errors: result.errors,
          timeouts: result.timeouts,
          seconds: (performance.now() - started) / 1000,
        });
      },
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      statuses.set(statusCode, (statuses.get(statusCode) ?? 0) + 1);
      if (statusCode === 202) latencies.push(responseTime);
    });
  });
}
