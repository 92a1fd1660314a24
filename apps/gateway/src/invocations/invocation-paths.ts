import { BulkReplayRequest, LONGEST_WAIT_SECONDS, VersionQuery } from '@skillrun/core';
import {
  DEPRECATION_HEADER,
  errors,
  executionId,
  json,
  ok,
  queryParameters,
  RATE_LIMIT_HEADERS,
  skillId,
} from '../http/openapi-parts';

const executionReplay = {
  post: {
    operationId: 'replayExecution',
    summary: 'Run an execution again as a new one (ours)',
    description:
      "A new execution of the same skill, linked to the original by `replay_of`, with the original's inputs or edited ones (validated like any invocation), at the original's requested version range (or the latest) unless `version` says otherwise. It is the replaying caller's, authorized, limited and recorded like any invocation. The body is optional. A composite's replay may rerun from a step (`from_step`, by default the step a failed one failed at): the steps before it are reused (their executions linked, `attempt` 0), the rest run at their skills' current versions, and the new execution names `forked_from`. Refused with 400 naming `from_step` when the step is unknown, a step before it did not complete, or the reused outputs no longer fit the step's input; 410 `OUTPUTS_EXPIRED` when a reused output has expired.",
    tags: ['invocation'],
    parameters: [skillId, executionId],
    requestBody: { required: false, content: json('ReplayRequest') },
    responses: {
      '202': ok('Accepted: the new execution (Location: its status URL).', 'InvocationAccepted', {
        Location: { description: "The new execution's status URL.", schema: { type: 'string' } },
        ...RATE_LIMIT_HEADERS,
      }),
      ...errors('400', '401', '403', '404', '410', '415', '429', '503'),
    },
  },
};

/** The paths that start executions: invoking a skill, and replaying one execution or a page of them. */
export const invocationPaths = {
  '/skills/{skill_id}/invoke': {
    post: {
      operationId: 'invokeSkill',
      summary: 'Invoke a skill (spec 001 step 1)',
      tags: ['invocation'],
      parameters: [
        skillId,
        ...queryParameters(VersionQuery),
        {
          name: 'traceparent',
          in: 'header',
          required: false,
          description: 'W3C trace context; its trace id is used when context.trace_id is absent.',
          schema: { type: 'string' },
        },
        {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            'draft-ietf-httpapi-idempotency-key-header: 1 to 255 visible ASCII characters (a Structured Field string, or bare). A repeat of the same request by the same caller within IDEMPOTENCY_TTL_SECONDS gets the execution the first one started (202, Idempotent-Replayed: true) and starts nothing; the key with a different request is 422.',
          schema: { type: 'string' },
        },
        {
          name: 'Prefer',
          in: 'header',
          required: false,
          description: `RFC 7240 \`wait=N\` (whole seconds up to ${LONGEST_WAIT_SECONDS}, capped at MAX_WAIT_SECONDS): answer once the execution ends (200, its status) or, if it has not after N seconds, 202 as without it. Not applied to an invocation that makes a webhook (its 202 shows the secret once). Other preferences are ignored.`,
          schema: { type: 'string' },
        },
      ],
      requestBody: { required: true, content: json('InvocationRequest') },
      responses: {
        '200': ok(
          'Asked to wait (Prefer: wait=N), the execution ended within the wait: its status, as GET result answers it (completed, failed, timeout or canceled).',
          'Execution',
          {
            Location: { description: 'The status URL.', schema: { type: 'string' } },
            'Preference-Applied': {
              description: '`wait=N`: the seconds the gateway was ready to wait.',
              schema: { type: 'string' },
            },
            ...DEPRECATION_HEADER,
            ...RATE_LIMIT_HEADERS,
          },
        ),
        '202': ok('Accepted; Location is the status URL.', 'InvocationAccepted', {
          Location: { description: 'The status URL.', schema: { type: 'string' } },
          'Idempotent-Replayed': {
            description:
              '`true` when an earlier request with the same Idempotency-Key started this execution.',
            schema: { type: 'string', enum: ['true'] },
          },
          Debounced: {
            description:
              '`true` when the invocation joined the execution its `context.debounce` key had open: nothing new was started.',
            schema: { type: 'string', enum: ['true'] },
          },
          ...DEPRECATION_HEADER,
          ...RATE_LIMIT_HEADERS,
        }),
        ...errors('400', '401', '403', '404', '409', '413', '415', '422', '429', '503'),
      },
    },
  },
  '/skills/{skill_id}/replay/{execution_id}': executionReplay,
  '/executions/replay': {
    post: {
      operationId: 'replayExecutions',
      summary: 'Replay, in bulk, the executions a history filter finds (ours)',
      description:
        'The body is the query of GET /executions as JSON (limit up to 100), and `from_step`: each execution of that page is replayed as by POST replay, with its own inputs, a composite from `from_step` (or from the step it failed at). Answers each new execution or why one could not start, and the cursor to replay the next page.',
      tags: ['invocation'],
      requestBody: { required: true, content: { 'application/json': { schema: BulkReplayRequest } } },
      responses: {
        '200': ok('What was replayed.', 'BulkReplayResult'),
        ...errors('400', '401', '403', '415', '503'),
      },
    },
  },
};
