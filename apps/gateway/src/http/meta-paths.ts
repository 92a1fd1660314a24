import { errors } from './openapi-parts';

/** Each readiness check: `unknown` when it cannot be made (CONFIG disabled on a managed Redis). */
const READINESS_CHECKS = {
  type: 'array',
  items: {
    type: 'object',
    properties: {
      check: { type: 'string', enum: ['redis', 'queue', 'eviction_policy', 'replicas'] },
      status: { type: 'string', enum: ['ok', 'unknown', 'failed'] },
      detail: { type: 'string' },
    },
    required: ['check', 'status', 'detail'],
  },
};

function health(operationId: string, description: string) {
  return {
    get: {
      operationId,
      summary: description,
      tags: ['meta'],
      responses: {
        '200': {
          description,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: {
                  status: { type: 'string' },
                  ...(operationId === 'readyz' ? { checks: READINESS_CHECKS } : {}),
                },
              },
            },
          },
        },
        ...(operationId === 'readyz' ? errors('503') : {}),
      },
    },
  };
}

/** The paths of the process itself: liveness, readiness and metrics. */
export const metaPaths = {
  '/healthz': health('healthz', 'The process answers.'),
  '/readyz': health(
    'readyz',
    'The gateway can take work: Redis answers, a queue write goes through, its maxmemory-policy is noeviction, and with ACK_REPLICAS and Sentinels every replica they know confirms a launch (503 names the failing check).',
  ),
  '/metrics': {
    get: {
      operationId: 'getMetrics',
      summary: "This gateway's metrics, in Prometheus' text format",
      tags: ['meta'],
      responses: {
        '200': { description: 'Prometheus text format 0.0.4', content: { 'text/plain': {} } },
      },
    },
  },
};
