import { ExecutionReadQuery, LONGEST_WAIT_SECONDS, MAX_BATCH_ITEMS } from '@skillrun/core';
import { errors, json, ok, queryParameters, RATE_LIMIT_HEADERS } from '../http/openapi-parts';

const tags = ['batches'];
const batchId = { name: 'batch_id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };
const OWNED =
  "The caller's own batches (an admin's: anyone's); an anonymous caller's batch by its id alone. Any other is 404 BATCH_NOT_FOUND, as an unknown id.";

/** Ours: batches of invocations, under /batches. */
export const batchPaths = {
  '/batches': {
    post: {
      operationId: 'createBatch',
      summary: `Invoke skills in bulk: up to ${MAX_BATCH_ITEMS} invocations in one request (ours)`,
      description: `Each item is validated, authorized and limited as POST invoke would (each counts as an invocation against the caller's rate limits and concurrency quotas), and those that pass are launched together in one Redis round trip. The answer has one place per item, in order: the execution it started, or the error envelope POST invoke would have answered for it (its paths relative to the item); the others run all the same. An item with an \`idempotency_key\` sent again gets the execution it started. Only a body that is not a batch (malformed, no items, over ${MAX_BATCH_ITEMS}) is refused whole. Every execution names the batch in \`batch_id\`; \`GET /executions?batch_id=\` lists them.`,
      tags,
      requestBody: { required: true, content: json('BatchRequest') },
      responses: {
        '202': ok('Accepted: a place per item (Location: the batch).', 'BatchAccepted', {
          Location: { description: "The batch's URL.", schema: { type: 'string' } },
          ...RATE_LIMIT_HEADERS,
        }),
        ...errors('400', '401', '413', '415', '503'),
      },
    },
  },
  '/batches/{batch_id}': {
    get: {
      operationId: 'getBatch',
      summary: "Where a batch's executions stand, counted by status (ours)",
      description: `Answers at once, or, asked to wait (\`Prefer: wait=N\` or \`?wait=N\`), once every execution of the batch has ended, at the latest after N seconds (capped at MAX_WAIT_SECONDS). Kept EXECUTION_TTL_SECONDS past its creation and past each end of one of its executions. ${OWNED}`,
      tags,
      parameters: [
        batchId,
        ...queryParameters(ExecutionReadQuery),
        {
          name: 'Prefer',
          in: 'header',
          required: false,
          description: `RFC 7240 \`wait=N\` (whole seconds up to ${LONGEST_WAIT_SECONDS}): the same as \`?wait=N\`, which wins when both are given.`,
          schema: { type: 'string' },
        },
      ],
      responses: {
        '200': ok('The batch.', 'BatchView', {
          'Preference-Applied': {
            description:
              '`wait=N` when a wait was asked for and applied. Absent when the gateway had no room to wait (MAX_WAITERS) and answered at once.',
            schema: { type: 'string' },
          },
          'Retry-After': {
            description: '`1` while some execution of the batch has not ended.',
            schema: { type: 'integer' },
          },
        }),
        ...errors('400', '404', '503'),
      },
    },
  },
  '/batches/{batch_id}/cancel': {
    post: {
      operationId: 'cancelBatch',
      summary: 'Cancels every execution of a batch that has not ended (ours)',
      description: `Each with the ordinary atomic cancel (POST cancel): a waiting one never starts, a running one is aborted, one that ends meanwhile keeps its end. Answers the batch as it then stands. Needs the skill:invoke scope. ${OWNED}`,
      tags,
      parameters: [batchId],
      responses: { '200': ok('The batch, after.', 'BatchView'), ...errors('403', '404', '503') },
    },
  },
};
