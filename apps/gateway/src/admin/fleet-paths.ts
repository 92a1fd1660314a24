import { errors } from '../http/openapi-parts';

const count = { type: 'integer', minimum: 0 };

/** The answer of GET /admin/fleet, inline: a read-out for operators, not a protocol shape. */
const Fleet = {
  type: 'object',
  required: ['workers', 'queues', 'read_at'],
  properties: {
    workers: {
      type: 'array',
      items: {
        type: 'object',
        required: ['worker_id', 'lease_expires_at', 'hosts'],
        properties: {
          worker_id: { type: 'string' },
          lease_expires_at: { type: 'string', format: 'date-time' },
          hosts: {
            type: 'array',
            items: {
              type: 'object',
              required: ['skill_id', 'version'],
              properties: { skill_id: { type: 'string' }, version: { type: 'string' } },
            },
          },
        },
      },
    },
    queues: {
      type: 'array',
      items: {
        type: 'object',
        required: [
          'skill_id',
          'version',
          'waiting',
          'active',
          'delayed',
          'oldest_waiting_seconds',
          'workers',
          'paused',
        ],
        properties: {
          skill_id: { type: 'string' },
          version: { type: 'string' },
          waiting: count,
          active: count,
          delayed: count,
          oldest_waiting_seconds: { type: 'number', minimum: 0 },
          workers: count,
          paused: {
            type: 'boolean',
            description: 'An operator paused its skill: its jobs wait, none starts.',
          },
        },
      },
    },
    read_at: { type: 'string', format: 'date-time' },
  },
};

/** Ours: the operators' read-out of workers and queues (the console's Workers page). */
export const fleetPaths = {
  '/admin/fleet': {
    get: {
      operationId: 'getFleet',
      summary: 'The workers alive, what each hosts, and each hosted version queue (ours, admin only)',
      description:
        "Workers holding a live lease in the registry with the skill versions they host; for each hosted version, its queues' jobs waiting (prioritized included), active and delayed, the age of the oldest in line, the live workers hosting it and whether its skill is paused. Read from Redis on request.",
      tags: ['admin'],
      responses: {
        '200': { description: 'The fleet now.', content: { 'application/json': { schema: Fleet } } },
        ...errors('401', '403', '503'),
      },
    },
  },
};
