import {
  ExecutionEventsQuery,
  ExecutionListQuery,
  ExecutionReadQuery,
  LONGEST_WAIT_SECONDS,
  SkillSearchQuery,
  VersionQuery,
} from '@skillrun/core';
import { agentPaths } from '../agents/agent-paths';
import { consolePaths } from '../console/console-paths';
import { fleetPaths } from '../admin/fleet-paths';
import {
  DEPRECATION_HEADER,
  ERRORS,
  errors,
  executionId,
  type Json,
  json,
  ok,
  queryParameters,
  RATE_LIMIT_HEADERS,
  ref,
  schemas,
  skillId,
} from './openapi-parts';
import { taskPaths } from '../tasks/task-paths';
import { webhookPaths } from '../webhooks/webhook-paths';

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

const executionReplay = {
  post: {
    operationId: 'replayExecution',
    summary: 'Run an execution again as a new one (ours)',
    description:
      "A new execution of the same skill, linked to the original by `replay_of`, with the original's inputs or edited ones (validated like any invocation), at the original's requested version range (or the latest) unless `version` says otherwise. It is the replaying caller's, authorized, limited and recorded like any invocation. The body is optional.",
    tags: ['invocation'],
    parameters: [skillId, executionId],
    requestBody: { required: false, content: json('ReplayRequest') },
    responses: {
      '202': ok('Accepted: the new execution (Location: its status URL).', 'InvocationAccepted', {
        Location: { description: "The new execution's status URL.", schema: { type: 'string' } },
        ...RATE_LIMIT_HEADERS,
      }),
      ...errors('400', '401', '403', '404', '415', '429', '503'),
    },
  },
};

/** The OpenAPI 3.1 description of this gateway's HTTP API, built from the protocol's schemas. */
export function openApiDocument(baseUrl: string): Json {
  return {
    openapi: '3.1.0',
    info: {
      title: 'skillrun gateway',
      version: '1.0.0',
      description:
        'Discover, register and invoke skills. Invocation is asynchronous: POST invoke answers 202 with an execution_id; status and result read its state.',
    },
    servers: [{ url: baseUrl }],
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    paths: {
      '/skills': {
        get: {
          operationId: 'searchSkills',
          summary: 'Search skills (latest version of each), a page at a time',
          tags: ['discovery'],
          parameters: queryParameters(SkillSearchQuery),
          responses: {
            '200': ok('One page; follow next_cursor for more.', 'SkillSearchPage'),
            ...errors('400', '503'),
          },
        },
        post: {
          operationId: 'registerSkill',
          summary: 'Register a version of a skill hosted elsewhere',
          tags: ['registry'],
          requestBody: { required: true, content: json('SkillDescriptor') },
          responses: {
            '201': ok('Registered.', 'SkillDescriptor'),
            '200': ok('This exact version was already registered with the same content.', 'SkillDescriptor'),
            ...errors('400', '401', '403', '409', '413', '415', '503'),
          },
        },
      },
      '/skills/{skill_id}': {
        get: {
          operationId: 'getSkill',
          summary: "A skill's descriptor: the latest version, or the best one in a semver range",
          tags: ['discovery'],
          parameters: [skillId, ...queryParameters(VersionQuery)],
          responses: {
            '200': ok('The Skill Descriptor (spec 000).', 'SkillDescriptor', DEPRECATION_HEADER),
            ...errors('400', '404', '503'),
          },
        },
      },
      '/skills/{skill_id}/versions': {
        get: {
          operationId: 'listVersions',
          summary: 'Every available version of a skill, highest first',
          tags: ['discovery'],
          parameters: [skillId],
          responses: { '200': ok('The versions.', 'SkillVersionList'), ...errors('404', '503') },
        },
      },
      '/skills/{skill_id}/credentials': {
        put: {
          operationId: 'setProviderCredentials',
          summary: "Set what this service presents to a registered skill's provider (ours)",
          description:
            "For a skill registered from elsewhere (all its versions): its provider's api_key, or an OAuth 2 client (client_id, client_secret) for the client credentials grant at its token_url; `caller_id` is the caller these credentials are at the provider. Stored encrypted with PROVIDER_SECRETS_KEY (501 NOT_CONFIGURED without it), sent to that provider only, and never shown again. Needs the admin scope or the skill id's namespace.",
          tags: ['registry'],
          parameters: [skillId],
          requestBody: { required: true, content: json('ProviderCredentials') },
          responses: {
            '204': { description: 'Set.' },
            ...errors('400', '401', '403', '404', '415', '501', '503'),
          },
        },
        delete: {
          operationId: 'removeProviderCredentials',
          summary: "Remove the credentials for a registered skill's provider (ours)",
          tags: ['registry'],
          parameters: [skillId],
          responses: { '204': { description: 'Removed.' }, ...errors('401', '403', '404', '501', '503') },
        },
      },
      '/skills/{skill_id}/versions/{version}/deprecation': {
        parameters: [skillId, { name: 'version', in: 'path', required: true, schema: { type: 'string' } }],
        put: {
          operationId: 'deprecateVersion',
          summary: 'Deprecate a version (it still runs, and ranges prefer other versions)',
          tags: ['registry'],
          requestBody: { required: false, content: json('DeprecationRequest') },
          responses: {
            '200': ok('The version.', 'SkillVersionSummary'),
            ...errors('400', '401', '403', '404', '415', '503'),
          },
        },
        delete: {
          operationId: 'undeprecateVersion',
          summary: 'Withdraw a deprecation',
          tags: ['registry'],
          responses: {
            '200': ok('The version.', 'SkillVersionSummary'),
            ...errors('400', '401', '403', '404', '503'),
          },
        },
      },
      '/skills/{skill_id}/versions/{version}/dormancy': {
        parameters: [skillId, { name: 'version', in: 'path', required: true, schema: { type: 'string' } }],
        delete: {
          operationId: 'forgetDormantVersion',
          summary: 'Forget a hosted version whose pool scales to zero, once the pool is gone (ours)',
          description:
            'A hosted version whose workers run with WORKER_SCALE_TO_ZERO stays invocable while none is alive (dormant: `x-dormant` in its descriptor, `dormant` in its versions), its executions waiting for a worker to start. Once its pool is deleted, this takes the mark away: without a worker the version is then unavailable (404 SKILL_NOT_FOUND), as any hosted version is; executions already queued wait, or end at their queue timeout. Admin only. 409 SKILL_VERSION_CONFLICT while a worker holds a live lease on it (it would mark it again); 404 when it is not marked.',
          tags: ['registry'],
          responses: {
            '204': { description: 'Forgotten.' },
            ...errors('400', '401', '403', '404', '409', '503'),
          },
        },
      },
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
              ...DEPRECATION_HEADER,
              ...RATE_LIMIT_HEADERS,
            }),
            ...errors('400', '401', '403', '404', '409', '413', '415', '422', '429', '503'),
          },
        },
      },
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
      '/executions/replay': {
        post: {
          operationId: 'replayExecutions',
          summary: 'Replay, in bulk, the executions a history filter finds (ours)',
          description:
            'The body is the query of GET /executions as JSON (limit up to 100): each execution of that page is replayed as by POST replay, with its own inputs. Answers each new execution or why one could not start, and the cursor to replay the next page.',
          tags: ['invocation'],
          requestBody: { required: true, content: { 'application/json': { schema: ExecutionListQuery } } },
          responses: {
            '200': ok('What was replayed.', 'BulkReplayResult'),
            ...errors('400', '401', '403', '415', '503'),
          },
        },
      },
      ...taskPaths,
      ...webhookPaths,
      ...fleetPaths,
      ...consolePaths,
      ...agentPaths,
      '/me': {
        get: {
          operationId: 'whoAmI',
          summary: 'Who the credentials say the caller is (ours)',
          description:
            'The caller.id an invocation with these credentials must name (any other is 403), its scopes and the skills it may use. 401 without valid credentials.',
          tags: ['meta'],
          responses: { '200': ok('The caller.', 'CallerIdentity'), ...errors('401', '503') },
        },
      },
      '/admin/keys': {
        post: {
          operationId: 'createApiKey',
          summary: 'Create an API key (admin); the key is in this answer only',
          tags: ['admin'],
          requestBody: { required: true, content: json('NewApiKey') },
          responses: { '201': ok('Created.', 'CreatedApiKey'), ...errors('400', '401', '403', '415', '503') },
        },
        get: {
          operationId: 'listApiKeys',
          summary: 'List API keys (admin), never their secrets',
          tags: ['admin'],
          parameters: [{ name: 'caller_id', in: 'query', required: false, schema: { type: 'string' } }],
          responses: {
            '200': {
              description: 'The keys.',
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    properties: { keys: { type: 'array', items: ref('ApiKeyRecord') } },
                  },
                },
              },
            },
            ...errors('401', '403', '503'),
          },
        },
      },
      '/admin/keys/{key_id}': {
        delete: {
          operationId: 'revokeApiKey',
          summary: 'Revoke an API key (admin)',
          tags: ['admin'],
          parameters: [{ name: 'key_id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { '204': { description: 'Revoked.' }, ...errors('401', '403', '404', '503') },
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
      '/skills/{skill_id}/replay/{execution_id}': executionReplay,
      '/healthz': health('healthz', 'The process answers.'),
      '/readyz': health(
        'readyz',
        'The gateway can take work: Redis answers, a queue write goes through, and its maxmemory-policy is noeviction (503 names the failing check).',
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
      '/openapi.json': {
        get: {
          operationId: 'getOpenApi',
          summary: 'This document',
          tags: ['meta'],
          responses: { '200': { description: 'OpenAPI 3.1', content: { 'application/json': {} } } },
        },
      },
      '/docs': {
        get: {
          operationId: 'getDocs',
          summary: 'This document, browsable',
          tags: ['meta'],
          responses: { '200': { description: 'HTML', content: { 'text/html': {} } } },
        },
      },
      '/console': {
        get: {
          operationId: 'getConsole',
          summary: 'The operations console (a page for browsers; it signs in with an API key or token)',
          tags: ['meta'],
          responses: { '200': { description: 'HTML', content: { 'text/html': {} } } },
        },
      },
    },
    security: [{}, { apiKey: [] }, { bearer: [] }],
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      },
      schemas: JSON.parse(JSON.stringify(schemas)) as Json,
      responses: Object.fromEntries(
        Object.entries(ERRORS).map(([status, description]) => [
          `E${status}`,
          { description, content: json('ErrorEnvelope') },
        ]),
      ),
    },
  };
}

/** Each readiness check: `unknown` when it cannot be made (CONFIG disabled on a managed Redis). */
const READINESS_CHECKS = {
  type: 'array',
  items: {
    type: 'object',
    properties: {
      check: { type: 'string', enum: ['redis', 'queue', 'eviction_policy'] },
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
