import {
  ExecutionEventsQuery,
  ExecutionListQuery,
  ExecutionReadQuery,
  LONGEST_WAIT_SECONDS,
} from '@skillrun/core';
import { errors, executionId, json, ok, queryParameters, ref, skillId } from '../http/openapi-parts';

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
      description: `Answers at once, or, asked to wait (\`Prefer: wait=N\` or \`?wait=N\`), as soon as ${WAITS_FOR[step]}, at the latest after N seconds (capped at the gateway's MAX_WAIT_SECONDS); a finished execution is answered at once. Readable by its caller and by every role (viewer, operator, admin); a viewer gets it without \`output\`.`,
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
        "A caller sees its own executions, an admin everyone's (or one caller's with `caller_id`). Each page looks at up to 1,000 executions: a rare filter may give a page shorter than `limit` with a `next_cursor` to go on. Failed, timed-out and canceled executions stay listable for EXECUTION_TTL_SECONDS after they end, like their status. Besides the parameters below, `metadata.<key>=<value>` keeps the executions whose context.metadata has that top-level key with that value (a string as it is, another JSON value as JSON: `metadata.count=3`); several all hold. `tag` may repeat (`?tag=a&tag=b`, as `?tag=a,b`).",
      tags: ['invocation'],
      parameters: queryParameters(ExecutionListQuery),
      responses: {
        '200': ok('One page; follow next_cursor for older executions.', 'ExecutionListPage'),
        ...errors('400', '401', '403', '503'),
      },
    },
  },
  '/executions/cancel': {
    post: {
      operationId: 'cancelExecutions',
      summary: 'Cancel, in bulk, the executions a history filter finds (ours)',
      description:
        "The body is the filter of GET /executions as JSON (`skill_id`, `version`, `status`, `caller_id`, `since`, `until`, `schedule_id`, `batch_id`, `tag`, `tag_match`, `metadata.<key>`), with `limit` (1 to 1,000, default 100) and `cursor`. Cancels every execution it finds that has not ended, each by the atomic cancel of POST /skills/{id}/cancel/{execution_id} (a waiting one never starts, a running one is aborted, a composite's steps go with it): the caller's own; an admin's, anyone's (or one caller's with `caller_id`). One call cancels up to `limit` and looks at 1,000 executions at most: send the same filter with `next_cursor` until it is null. Needs the skill:invoke scope.",
      tags: ['invocation'],
      requestBody: { required: true, content: json('BulkCancelRequest') },
      responses: {
        '200': ok('How many were canceled, and where to go on.', 'BulkCancelResult'),
        ...errors('400', '401', '403', '415', '503'),
      },
    },
  },
  '/executions/events': {
    get: {
      operationId: 'streamCallerExecutions',
      summary: "Every change of the caller's executions as server-sent events (ours)",
      description:
        "text/event-stream, open until the client leaves: first an event `status` for each of the caller's executions that has not ended (the snapshot), then one at every change of any of its executions, those invoked later included (progress, a retry, a composite's step, the end); data: the status representation, id: the change's entry in the notifications stream (above one REDIS_SHARDS, the last entry of each shard's stream, joined by `_`). Reconnecting with Last-Event-ID sends every change since, without a gap, while the stream holds it (it keeps the latest 100,000 changes), else a snapshot again. Any gateway serves it. Needs credentials; an admin may follow another caller with `caller_id`. Counts against MAX_STREAMS_PER_CALLER with the per-execution streams (429 past it).",
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
      summary: "An execution's status and streamed output as server-sent events, until it ends (ours)",
      description:
        'text/event-stream: an event `status` (data: the status representation) at once, then one at every change (progress, a retry, a composite\'s step) until the execution ends, when the stream closes. Between them, an event `chunk` for each chunk of output the skill streams (ctx.emit, an llm skill with `stream`; data: `{"seq": n, "chunk": …}`, StreamedChunk), in order, every one before the end. Each event\'s id says where the client is: the time its status last changed (epoch ms), and once a chunk was sent, `:` and the last chunk\'s seq (`1767225600123:20`). With Last-Event-ID the current state is sent only if it changed since (each status event is the whole status, so nothing a client missed is lost) and the chunks after that seq, none twice. Any gateway serves any execution (the changes and chunks come from Redis). A stream keeps its execution\'s latest 10,000 chunks; a client further behind finds the oldest gone (a gap in the seqs). A comment every STREAM_HEARTBEAT_SECONDS keeps proxies from closing a quiet stream. Access as for GET status; a viewer (role) is told the statuses without output and no chunks. 429 past MAX_STREAMS_PER_CALLER open streams of one caller, or MAX_WAITERS on the gateway.',
      tags: ['invocation'],
      parameters: [
        skillId,
        executionId,
        {
          name: 'Last-Event-ID',
          in: 'header',
          required: false,
          description: 'The id of the last event received, to resume after it.',
          schema: { type: 'string', pattern: '^\\d+(:\\d+)?$' },
        },
      ],
      responses: {
        '200': {
          description: 'The stream of status and chunk events.',
          content: {
            'text/event-stream': {
              schema: { type: 'string' },
              'x-events': { status: ref('Execution'), chunk: ref('StreamedChunk') },
            },
          },
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
        '`{execution_id, inputs}`: the inputs as they were validated and recorded (defaults applied, coerced, migrated to the version that runs), as long as the record lives. Access as for GET status; a viewer (role) is refused with 403 naming the operator role.',
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
        ...errors('401', '403', '404', '503'),
      },
    },
  },
};
