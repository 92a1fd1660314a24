import { randomUUID } from 'node:crypto';
import {
  coercionOf,
  type Deprecation,
  type Execution,
  type ExecutionLauncher,
  type ExecutionStore,
  InvocationRequest,
  type JobPayload,
  migrateInputs,
  newTraceId,
  parseVersionRange,
  SchemaValidator,
  SkillError,
  type SkillResolver,
  type SkillSchemas,
} from '@skillrun/core';
import { redisDeadline } from './redis-deadline';

export interface InvocationServiceDeps {
  resolver: SkillResolver;
  store: ExecutionStore;
  launcher: ExecutionLauncher;
  schemas: SkillSchemas;
  redisTimeoutMs: number;
}

export interface Invocation {
  skillId: string;
  body: unknown;
  /** `?version=` of the invoke URL, if any. */
  versionQuery: string | undefined;
  traceparentTraceId: string | undefined;
}

export interface Accepted {
  execution: Execution;
  deprecation?: Deprecation;
}

const requestValidator = new SchemaValidator(InvocationRequest, 'invocation request');

/**
 * Accepts an invocation: the version is resolved and everything is validated before anything is
 * stored, then the execution record is written (so status is readable the instant 202 is
 * answered) and the job enqueued on that version's queue.
 */
export class InvocationService {
  constructor(private readonly deps: InvocationServiceDeps) {}

  async invoke({ skillId, body, versionQuery, traceparentTraceId }: Invocation): Promise<Accepted> {
    const request = requestValidator.parse(body);
    if (request.skill_id !== skillId) {
      throw new SkillError(
        'INVALID_INPUT',
        `skill_id "${request.skill_id}" does not match the URL's "${skillId}"`,
        { details: [{ path: '/skill_id', message: `must be "${skillId}"` }] },
      );
    }
    const range = requestedRange(request.version, versionQuery);
    const { entry, migrations, deprecation } = await this.redis(() =>
      this.deps.resolver.resolve(skillId, range),
    );
    if (entry.source !== 'hosted') {
      throw new SkillError(
        'SKILL_NOT_HOSTED',
        `${entry.id}@${entry.version} is registered for discovery; invoke it at ${entry.descriptor.endpoint.url}`,
      );
    }
    const skill = entry.definition;
    const inputs = this.deps.schemas.assertInputs(skill.input, migrateInputs(request.inputs, migrations), {
      coerce: coercionOf(entry),
      basePath: '/inputs',
    });
    const payload: JobPayload = {
      v: 1,
      execution_id: randomUUID(),
      skill_id: skill.name,
      skill_version: skill.version,
      inputs,
      caller: { id: request.caller.id, type: request.caller.type },
      trace_id: request.context?.trace_id ?? traceparentTraceId ?? newTraceId(),
      priority: request.context?.priority ?? 'normal',
      ...(request.context?.timeout_ms === undefined ? {} : { timeout_ms: request.context.timeout_ms }),
    };
    const execution = await this.deps.launcher.launch(
      { payload, skill, ...(range === undefined ? {} : { requestedVersion: range }) },
      (operation) => this.redis(operation),
    );
    return { execution, ...(deprecation ? { deprecation } : {}) };
  }

  /** The execution, if it exists and belongs to this skill. */
  async find(skillId: string, executionId: string): Promise<Execution> {
    const execution = await this.redis(() => this.deps.store.get(executionId));
    if (!execution || execution.skill_id !== skillId) {
      throw new SkillError('EXECUTION_NOT_FOUND', `No execution "${executionId}" of skill "${skillId}"`);
    }
    return execution;
  }

  private redis<T>(operation: () => Promise<T>): Promise<T> {
    return redisDeadline(operation, this.deps.redisTimeoutMs);
  }
}

/** The range from the body's `version` or the URL's `?version=`; they must agree when both are given. */
function requestedRange(fromBody: string | undefined, fromQuery: string | undefined): string | undefined {
  if (fromBody !== undefined && fromQuery !== undefined && fromBody !== fromQuery) {
    throw new SkillError('INVALID_INPUT', 'The body and the URL name different versions', {
      details: [{ path: '/version', message: `must match the URL's version "${fromQuery}" or be left out` }],
    });
  }
  const text = fromBody ?? fromQuery;
  return text === undefined ? undefined : parseVersionRange(text, '/version');
}
