import {
  ExecutionEventsQuery,
  ExecutionListQuery,
  ExecutionReadQuery,
  LONGEST_WAIT_SECONDS,
} from '@skillrun/core';
import { errors, executionId, ok, queryParameters, skillId } from '../http/openapi-parts';

/** What ends a wait on each read: status reports any change, result only the outcome. */
const WAITS_FOR = {
  status: 'the execution changes (progress, a retry, a step of a composite) or ends',
  result: 'the execution ends',
};

function executionRead(step: 'status' | 'result') {
  return {
    get: {
      operationId: `get${step[0]?.toUpperCase()}${step.slice(1)}`,
      summary: `The execution's ${step} (spec 001 step ${step === 'status' ? 2 : 3})`,
      description: `Answers at once, or, asked to wait (\`Prefer: wait=N\` or \`?wait=N\`), as soon as ${WAITS_FOR[step]}, at the latest after N seconds (capped at the gateway's MAX_WAIT_SECONDS); a finished execution is answered at once.`,
      tags: ['invocation'],
      parameters: [
        skillId,
        executionId,
        ...queryParameters(ExecutionReadQuery),
        {
          name: 'Prefer',
          in: 'header',
          required: false,
          description: `RFC 7240 \`wait=N\` (whole seconds): the same as \`?wait=N\`, which wins when both are given. Other preferences, and a wait that is not a whole number of seconds up to ${LONGEST_WAIT_SECONDS}, are ignored.`,
          schema: { type: 'string' },
        },
      ],
      responses: {
        '200': ok('The execution.', 'Execution', {
          'Preference-Applied': {
            description:
              '`wait=N` when a wait was asked for and applied: N is the seconds the gateway was ready to wait. Absent when it had no room to wait (MAX_WAITERS) and answered at once.',
            schema: { type: 'string' },
          },
          'Retry-After': {
            description:
              '`1` while the execution is not finished. To learn of its end sooner than a poll would, ask again with `Prefer: wait=N`, at once.',
            schema: { type: 'integer' },
          },
          'Retry-After-Ms': {
            description:
              "While the execution is not finished, when a client that polls should ask again, in milliseconds: a tenth of the execution's age, from 100 to 1000 (the sub-second hint OpenAI's API sends beside Retry-After).",
            schema: { type: 'integer', minimum: 100, maximum: 1000 },
          },
        }),
        ...errors('400', '404', '503'),
      },
    },
  };
}

const executionCancel = {
  post: {
    operationId: 'cancelExecution',
    summary: 'Cancel an execution (our extension of spec 001: endpoint.x-cancel_url)',
    description:
      "Ends an execution that has not ended as `canceled` (with its error EXECUTION_CANCELED), with the steps of a composite: a waiting one never starts, a running one has its signal aborted (and a code skill that ignores it its thread ended after ABORT_GRACE_MS). Works from any gateway, whichever worker runs it. Canceling a canceled execution answers it again; one that ended otherwise is 409 and changes nothing: a terminal status never changes. Needs the skill:invoke scope and, for an authenticated caller's execution, that caller (or an admin).",
    tags: ['invocation'],
    parameters: [skillId, executionId],
    responses: {
      '200': ok('The execution, canceled.', 'Execution'),
      ...errors('401', '403', '404', '409', '503'),
    },
  },
};

/** The paths of executions: each under its skill (read, canceled, followed), and all of a caller's. */
export const executionPaths = {
  '/executions': {
    get: {
      operationId: 'listExecutions',
      summary: 'List executions, newest first, a page at a time (ours)',
      description:
        "A caller sees its own executions, an admin everyone's (or one caller's with `caller_id`). Each page looks at up to 1,000 executions: a rare filter may give a page shorter than `limit` with a `next_cursor` to go on. Failed, timed-out and canceled executions stay listable for EXECUTION_TTL_SECONDS after they end, like their status.",
      tags: ['invocation'],
      parameters: queryParameters(ExecutionListQuery),
      responses: {
        '200': ok('One page; follow next_cursor for older executions.', 'ExecutionListPage'),
        ...errors('400', '401', '403', '503'),
      },
    },
  },
  '/executions/events': {
    get: {
      operationId: 'streamCallerExecutions',
      summary: "Every change of the caller's executions as server-sent events (ours)",
      description:
        "text/event-stream, open until the client leaves: first an event `status` for each of the caller's executions that has not ended (the snapshot), then one at every change of any of its executions, those invoked later included (progress, a retry, a composite's step, the end); data: the status representation, id: the change's entry in the notifications stream. Reconnecting with Last-Event-ID sends every change since, without a gap, while the stream holds it (it keeps the latest 100,000 changes), else a snapshot again. Any gateway serves it. Needs credentials; an admin may follow another caller with `caller_id`. Counts against MAX_STREAMS_PER_CALLER with the per-execution streams (429 past it).",
      tags: ['invocation'],
      parameters: queryParameters(ExecutionEventsQuery),
      responses: {
        '200': {
          description: 'The stream of status events.',
          content: { 'text/event-stream': { schema: { type: 'string' } } },
        },
        ...errors('400', '401', '403', '429', '503'),
      },
    },
  },
  '/skills/{skill_id}/status/{execution_id}': executionRead('status'),
  '/skills/{skill_id}/result/{execution_id}': executionRead('result'),
  '/skills/{skill_id}/cancel/{execution_id}': executionCancel,
  '/skills/{skill_id}/events/{execution_id}': {
    get: {
      operationId: 'streamExecution',
      summary: "An execution's status as server-sent events, until it ends (ours)",
      description:
        "text/event-stream: an event `status` (data: the status representation, id: when it last changed, epoch ms) at once, then one at every change (progress, a retry, a composite's step) until the execution ends, when the stream closes. Any gateway serves any execution (the changes come from Redis). With Last-Event-ID the current state is sent only if it changed since; each event is the whole status, so nothing a client missed is lost. A comment every STREAM_HEARTBEAT_SECONDS keeps proxies from closing a quiet stream. Access as for GET status. 429 past MAX_STREAMS_PER_CALLER open streams of one caller, or MAX_WAITERS on the gateway.",
      tags: ['invocation'],
      parameters: [skillId, executionId],
      responses: {
        '200': {
          description: 'The stream of status events.',
          content: { 'text/event-stream': { schema: { type: 'string' } } },
        },
        ...errors('401', '404', '429', '503'),
      },
    },
  },
  '/skills/{skill_id}/inputs/{execution_id}': {
    get: {
      operationId: 'getExecutionInputs',
      summary: 'The inputs an execution was started with (ours)',
      description:
        '`{execution_id, inputs}`: the inputs as they were validated and recorded (defaults applied, coerced, migrated to the version that runs), as long as the record lives. Access as for GET status.',
      tags: ['invocation'],
      parameters: [skillId, executionId],
      responses: {
        '200': {
          description: 'The inputs.',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['execution_id', 'inputs'],
                properties: { execution_id: { type: 'string' }, inputs: { type: 'object' } },
              },
            },
          },
        },
        ...errors('401', '404', '503'),
      },
    },
  },
};
